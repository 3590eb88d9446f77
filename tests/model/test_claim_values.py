"""Typed claim values (model/claim_values.py): every kind round-trips through its one JSON
form, a stored dict with a stray key or a wrong type is refused naming kind and key, and the
JSON form is key for key the dict extraction built before the values were typed."""

from __future__ import annotations

import json
import types
import typing

import pytest
from hypothesis import given
from hypothesis import strategies as st

from casebuilder.errors import CasebuilderError, ClaimValueError
from casebuilder.model import claim_values as cv

KINDS = [*cv.CLAIM_VALUES, *(f"{cv.NOT_TAKEN}/{what}" for what in cv.NOT_TAKEN_VALUES)]


def kind_and_class(name: str) -> tuple[str, type]:
    if name.startswith(cv.NOT_TAKEN + "/"):
        return cv.NOT_TAKEN, cv.NOT_TAKEN_VALUES[name.split("/", 1)[1]]
    return name, cv.CLAIM_VALUES[name]


SIMPLE = {str: st.text(max_size=12), int: st.integers(min_value=-1, max_value=10**9),
          bool: st.booleans(), type(None): st.none()}


def strategy(hint: object) -> st.SearchStrategy[object]:
    """Any JSON-able value of a value field's type hint."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return st.one_of([strategy(option) for option in typing.get_args(hint)])
    if origin is typing.Literal:
        return st.sampled_from(typing.get_args(hint))
    if origin is tuple:
        return st.lists(strategy(typing.get_args(hint)[0]), max_size=3).map(tuple)
    return SIMPLE[hint]  # type: ignore[index]


def values_of(cls: type) -> st.SearchStrategy[object]:
    """Any value of ``cls`` (a `what` field keeps its one literal)."""
    return st.builds(cls, **{f.name: strategy(f.hint) for f in cv._fields(cls)
                             if f.name != "what"})


@pytest.mark.parametrize("name", KINDS)
@given(data=st.data())
def test_every_kind_round_trips_through_its_json_form(name, data):
    kind, cls = kind_and_class(name)
    value = data.draw(values_of(cls))
    stored = json.loads(json.dumps(cv.to_json(value)))  # as a JSON column gives it back
    again = cv.from_json(kind, stored)
    assert again == value
    assert json.dumps(cv.to_json(again)) == json.dumps(cv.to_json(value))


# The dicts extraction built before the values were typed, one per shape (written here from
# the builders in extraction/mention_claims.py, mentions.py, harm_words.py, assembly.py).
EXAMPLES = [
    ("category", '{"category": "killing", "trigger": "shot dead", "weak": false}'),
    ("place", '{"name": "Foo", "gazetteer_id": "test:1", "role": "event"}'),
    ("place", '{"name": "Foo", "gazetteer_id": "test:1", "role": "event", "field": "title"}'),
    ("date", '{"iso": "2022-04-08", "precision": "day", "expression": "on Friday", '
             '"role": "event", "distance": 12}'),
    ("date", '{"iso": "2022-04-07", "precision": "day", "expression": "a day after", '
             '"role": "event"}'),
    ("killed", '{"low": 3, "high": null, "qualifier": "at least", "population": null, '
               '"subgroup": false, "cumulative": false, "text": "at least three people", '
               '"earlier_report": false, "shared_by": []}'),
    ("injured", '{"low": null, "high": 20, "qualifier": "up to", "population": "children", '
                '"subgroup": true, "cumulative": false, "text": "up to 20 children", '
                '"earlier_report": true, "shared_by": ["Foo", "Bar"]}'),
    ("weapon", '{"weapon": "rocket", "family": "rocket", "wide_area": true, '
               '"words": "rockets"}'),
    ("target", '{"target_type": "school", "protected": true, "words": "a school"}'),
    ("target", '{"target_type": "theatre", "protected": false, "words": "the theatre", '
               '"setting": true}'),
    ("perpetrator", '{"party": "xx", "label": "X forces", "words": "X troops", '
                    '"competing": false}'),
    ("denial", '{"party": null, "speaker": "a spokesman", "words": "denied"}'),
    ("military_objective", '{"words": "depot", "claimed_by": "the ministry"}'),
    ("no_military_objective", '{"words": "soldiers"}'),
    ("civilian_status", '{"civilian": true, "words": "civilians"}'),
    ("statement", '{"speaker": "the mayor", "verb": "wrote"}'),
    ("relative_date", '{"expression": "two days after", "days_offset": 2, '
                      '"direction": "after"}'),
    ("not_taken", '{"what": "category", "words": "evacuation", "category": "displacement"}'),
    ("not_taken", '{"what": "category", "words": "executed"}'),
    ("not_taken", '{"what": "figure", "words": "40 people", "measure": "killed", "low": 40, '
                  '"high": null, "taken_as": "running_total"}'),
    ("not_taken", '{"what": "figure", "words": "200 people", "measure": "affected", '
                  '"low": 200, "high": null}'),
    ("not_taken", '{"what": "date", "words": "on Monday", "iso": "2022-04-04", '
                  '"taken_as": "report"}'),
    ("not_taken", '{"what": "place", "words": "Foo", "gazetteer_id": "test:1", '
                  '"taken_as": "dateline"}'),
    ("not_taken", '{"what": "place", "words": "Foo", "gazetteer_id": "test:1", '
                  '"taken_as": null}'),
    ("not_taken", '{"what": "weapon", "words": "missiles", "weapon": "missile"}'),
    ("not_taken", '{"what": "target", "words": "a hospital", "target_type": "hospital", '
                  '"taken_as": "care"}'),
    ("not_taken", '{"what": "target", "words": "a bridge", "target_type": "bridge"}'),
]


@pytest.mark.parametrize(("kind", "text"), EXAMPLES)
def test_a_value_as_extraction_built_it_parses_and_serialises_byte_identically(kind, text):
    value = cv.from_json(kind, json.loads(text))
    assert cv.fits(kind, value)
    assert json.dumps(cv.to_json(value)) == text


def test_every_kind_has_an_example():
    covered = {kind if kind != cv.NOT_TAKEN else f"{kind}/{json.loads(text)['what']}"
               for kind, text in EXAMPLES}
    # the other casualty measures share the killed/injured class
    assert set(KINDS) - covered <= {"missing", "affected", "casualties"}


@pytest.mark.parametrize(("kind", "data", "key"), [
    ("weapon", {"weapon": "rocket", "family": "rocket", "wide_area": True, "words": "x",
                "calibre": 122}, "calibre"),
    ("date", {"iso": "2022", "precision": "year", "expression": "in 2022", "role": "event",
              "distance": "far"}, "distance"),
    ("killed", {"low": True, "high": None, "qualifier": "exact", "population": None,
                "subgroup": False, "cumulative": False, "text": "", "earlier_report": False,
                "shared_by": []}, "low"),
    ("target", {"target_type": "school", "protected": 1, "words": "a school"}, "protected"),
    ("injured", {"low": 1, "high": 1, "qualifier": "exact", "population": None,
                 "subgroup": False, "cumulative": False, "text": "", "earlier_report": False,
                 "shared_by": [1]}, "shared_by"),
    ("date", {"iso": "2022", "precision": "decade", "expression": "", "role": "event"},
     "precision"),
    ("category", {"category": "killing", "weak": False}, "trigger"),
    ("not_taken", {"what": "place", "words": "Foo", "gazetteer_id": "x"}, "taken_as"),
    ("not_taken", {"what": "figure", "words": "x", "measure": "killed", "low": 1, "high": 1,
                   "iso": "2022"}, "iso"),
    ("not_taken", {"what": "rumour", "words": "x"}, "what"),
])
def test_an_unknown_key_a_missing_key_or_a_wrong_type_is_refused(kind, data, key):
    with pytest.raises(ClaimValueError) as refused:
        cv.from_json(kind, data)
    assert isinstance(refused.value, CasebuilderError)
    assert kind in str(refused.value) and repr(key) in str(refused.value)


def test_an_unknown_kind_is_refused():
    with pytest.raises(ClaimValueError, match="'rumour'"):
        cv.from_json("rumour", {})


def test_a_value_that_is_no_object_is_refused():
    with pytest.raises(ClaimValueError, match="weapon"):
        cv.from_json("weapon", ["rocket"])  # type: ignore[arg-type]


def test_optional_fields_are_left_out_only_while_none():
    value = cv.DateValue(iso="2022", precision="year", expression="in 2022", role="event")
    assert "distance" not in cv.to_json(value)
    assert cv.to_json(cv.NotTakenPlace(words="Foo", gazetteer_id="x", taken_as=None)) == {
        "what": "place", "words": "Foo", "gazetteer_id": "x", "taken_as": None}


def test_a_date_without_a_distance_ranks_with_dates_far_from_harm():
    far = cv.DateValue(iso="2022", precision="year", expression="", role="event")
    assert far.ranking_distance == cv.NO_HARM_WORD_DISTANCE
    assert cv.DateValue(iso="2022", precision="year", expression="", role="event",
                        distance=-1).ranking_distance == -1
