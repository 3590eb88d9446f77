"""The fields of a claim and of a mention are defined once (model/claim_values.py): the
serialiser, the rows extraction writes, the columns of the store and verify's results digest
all follow that one definition, and no second list of a claim value's keys is written
anywhere else in the code."""

from __future__ import annotations

import dataclasses
from datetime import date

from casebuilder.extraction.attribution import Attribution
from casebuilder.extraction.claims import Claim, IncidentMention, Provenance
from casebuilder.extraction.run import _mention_row
from casebuilder.model import claim_values as cv
from casebuilder.preservation import verify
from casebuilder.store import schema
from test_one_definition import copies

VALUE_CLASSES = {*cv.CLAIM_VALUES.values(), *cv.NOT_TAKEN_VALUES.values()}


def a_claim() -> Claim:
    return Claim("weapon", cv.WeaponValue(weapon="rocket", family="rocket", wide_area=True,
                                          words="rockets"),
                 Provenance(1, 10, 17, "Rockets hit the town.", 10, 31),
                 Attribution("an outlet", "", "outlet", None, "", "stated"), "weapon-word")


def columns(table: type) -> list[str]:
    return [c.name for c in table.__table__.columns]  # type: ignore[attr-defined]


def test_verify_digests_exactly_the_claim_fields_the_serialiser_writes():
    assert tuple(a_claim().as_json()) == cv.CLAIM_RECORD_FIELDS
    assert tuple(verify.CLAIM_FIELDS) == cv.CLAIM_RECORD_FIELDS
    assert all(key == column for key, column in verify.CLAIM_FIELDS.items())
    assert set(verify.LEGACY_CLAIM_FIELDS) == set(cv.CLAIM_RECORD_FIELDS) - {"also_attributed"}
    assert verify.RESULTS_FORMATS[verify.CURRENT_RESULTS_FORMAT] is verify.CLAIM_FIELDS


def test_every_claim_field_is_a_column_of_the_claims_table():
    assert set(columns(schema.Claim)) - {"id", "mention_id"} == set(cv.CLAIM_RECORD_FIELDS)


def test_verify_digests_exactly_the_mention_columns_extraction_writes(extraction_tools):
    mention = IncidentMention(1, "Foo", None, False, 0, [a_claim()])
    row = _mention_row(mention, "0" * 64, extraction_tools, date(2022, 4, 8))
    assert tuple(row) == cv.MENTION_RECORD_FIELDS == verify.MENTION_FIELDS
    assert set(columns(schema.IncidentMention)) - {"id", "run_id", "item_id"} == set(
        cv.MENTION_RECORD_FIELDS)


def test_the_field_lists_are_written_once():
    claim_fields = set(cv.CLAIM_RECORD_FIELDS)
    mention_fields = set(cv.MENTION_RECORD_FIELDS)
    # the serialiser and the mention row builder are the definitions' two tested users
    assert copies(claim_fields, len(claim_fields) - 1, allowed={
        "model/claim_values.py", "extraction/claims.py"}) == []
    assert copies(mention_fields, len(mention_fields) - 1, allowed={
        "model/claim_values.py", "extraction/run.py"}) == []


def test_no_second_list_of_a_claim_values_keys():
    """A dict, list or set literal naming every key of a kind's value is a second definition
    of that value (a hand-built value dict, or a field list of its own) drifting apart."""
    found = []
    for cls in VALUE_CLASSES:
        names = set(cv.field_names(cls))
        if len(names) >= 3:
            found += [f"{cls.__name__}: {hit}" for hit in
                      copies(names, len(names), allowed={"model/claim_values.py"})]
    assert found == []


def test_the_json_keys_of_each_value_are_its_dataclass_fields():
    for cls in VALUE_CLASSES:
        assert cv.field_names(cls) == tuple(f.name for f in dataclasses.fields(cls))
