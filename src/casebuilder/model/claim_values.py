"""The value of each kind of claim: one frozen dataclass per kind, and its one JSON form.

A claim (extraction/claims.py) pairs a kind ("killed", "place", "weapon" ...) with a value;
the value classes here hold exactly the fields each kind's value has, so extraction builds
them, resolution, the CLI and the exports read their attributes, and nothing reads a key with
a made-up default. :func:`to_json` is the only serialiser: its output is the dict stored in a
claim row and digested into an ``extract`` custody entry, key for key and in the same order as
the dicts extraction built before the values were typed, so results digests of older runs
still check. :func:`from_json` reads a stored dict back and refuses a key the kind does not
have, a missing key or a value of the wrong type, with :class:`ClaimValueError` naming the
kind and the key.

The one rule of the JSON form: fields are written in the order the class declares them; a
field whose default is None is left out while it is None (an optional detail, absent when the
words gave none); every other field is always written, None included.

The kinds: ``category``, ``place``, ``date``, one kind per casualty measure (``killed``,
``injured``, ``missing``, ``affected``, ``casualties``, all :class:`FigureValue`),
``weapon``, ``target``, ``perpetrator``, ``denial``, ``military_objective``,
``no_military_objective``, ``civilian_status``, ``statement``, ``relative_date`` and
``not_taken``. A ``not_taken`` claim (a negative trace: a value a rule set aside or gave
another role) has one class per ``what`` it records, since a set-aside place, date or
figure keep different details; :data:`NOT_TAKEN_VALUES` maps ``what`` to its class.

Two more field lists live here, once, because the results digest is made of them: the keys of
a claim as serialised (:data:`CLAIM_RECORD_FIELDS`: ``Claim.as_json()``, the columns of a claim
row) and the columns of a mention row (:data:`MENTION_RECORD_FIELDS`). Extraction writes them;
preservation/verify.py recomputes the digest from the stored rows by them.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeGuard, Union, get_args, get_origin, get_type_hints

from casebuilder.errors import ClaimValueError
from casebuilder.model.partial_date import Precision

#: The kind of a claim that records a value not taken, and the rule that set it aside.
NOT_TAKEN: Final = "not_taken"

#: What a casualty figure counts; each measure is a claim kind of its own.
Measure = Literal["killed", "injured", "missing", "affected", "casualties"]
FIGURE_KINDS: Final[tuple[Measure, ...]] = get_args(Measure)

#: The distance extraction gives a date whose sentence has no harm or weapon word: as far
#: from the harm as a date can be.
NO_HARM_WORD_DISTANCE: Final = 999


@dataclass(frozen=True, kw_only=True)
class CategoryValue:
    """A category of harm the words report ("killing", "explosive_attack")."""

    category: str
    trigger: str  # the phrase that reported it
    weak: bool  # every phrase for it is a weak one ("killed" alone in a report of a strike)


@dataclass(frozen=True, kw_only=True)
class PlaceValue:
    """The mention's place as these words name it."""

    name: str  # as written
    gazetteer_id: str
    role: str  # the role of the name in its sentence ("event", ...)
    #: "title" when the words are the collection's headline; absent: the text's own words.
    field: str | None = None


@dataclass(frozen=True, kw_only=True)
class DateValue:
    """A date the words give, dating the event or the report of it."""

    iso: str  # a PartialDate in ISO form
    precision: Precision
    expression: str
    role: str  # "event" | "report"
    #: Characters between the date and the nearest harm or weapon word of its sentence (-1:
    #: "Friday's strike"; NO_HARM_WORD_DISTANCE: none). Absent: the date was worked out
    #: from another event's date ("a day after the strike"), not read beside a harm word.
    distance: int | None = None
    #: The time of day the words give with the date ("at 14:10 local time"), HH:MM, and the
    #: zone as written; absent: none given.
    time: str | None = None
    zone: str | None = None
    #: "occupation": the date is an occupation's period, which dates crimes found after a
    #: retaking (extraction/occupation.py); absent for any other date.
    period: str | None = None
    open_start: bool | None = None  # the period's start is not stated (runs from the war's)
    decided_by: str | None = None  # the rule table and rule that made the period
    start_words: str | None = None  # the words that state the period's start, and where
    start_char_start: int | None = None
    start_char_end: int | None = None
    #: True for a date that is the edge of an occupation period (the retaking), not a
    #: crime's day; absent otherwise.
    occupation_bound: bool | None = None

    @property
    def ranking_distance(self) -> int:
        """The distance to rank dates by: one with none ranks with dates far from any harm."""
        return NO_HARM_WORD_DISTANCE if self.distance is None else self.distance


@dataclass(frozen=True, kw_only=True)
class FigureValue:
    """A casualty figure (the claim's kind is its measure); low/high None: not stated."""

    low: int | None
    high: int | None
    qualifier: str  # exact | at least | more than | about | up to | between | vague | none
    population: str | None  # civilians, children, military ...; None: the text does not say
    subgroup: bool  # a part of the toll ("five children among the dead"), not a total
    cumulative: bool  # a running or joint total
    text: str
    earlier_report: bool  # the text gives it as an earlier report's figure
    shared_by: tuple[str, ...]  # the places it was given for jointly (empty: this place's own)
    #: When the figure is stated as of ("as of 09:30 on 8 August"): ISO day and time, the zone
    #: as written, the words and their offsets; absent: the text gives no time for it.
    stated_at: str | None = None
    stated_zone: str | None = None
    stated_words: str | None = None
    stated_char_start: int | None = None
    stated_char_end: int | None = None


@dataclass(frozen=True, kw_only=True)
class WeaponValue:
    weapon: str
    family: str
    wide_area: bool
    words: str


@dataclass(frozen=True, kw_only=True)
class TargetValue:
    target_type: str
    protected: bool
    words: str
    #: True when the words name it only as the setting, where no harm is told ("sheltering
    #: in the theatre"); absent: named where harm is told.
    setting: bool | None = None


@dataclass(frozen=True, kw_only=True)
class PerpetratorValue:
    party: str
    label: str
    words: str
    competing: bool  # a counter-accusation made while denying


@dataclass(frozen=True, kw_only=True)
class DenialValue:
    party: str | None  # the party of the source that denies; None: the source has none
    speaker: str
    words: str


@dataclass(frozen=True, kw_only=True)
class MilitaryObjectiveValue:
    words: str
    claimed_by: str


@dataclass(frozen=True, kw_only=True)
class NoMilitaryObjectiveValue:
    words: str


@dataclass(frozen=True, kw_only=True)
class CivilianStatusValue:
    civilian: bool
    words: str


@dataclass(frozen=True, kw_only=True)
class StatementValue:
    """A named source's account with no fact the rules read: who said what about it."""

    speaker: str
    verb: str


@dataclass(frozen=True, kw_only=True)
class RelativeDateValue:
    expression: str  # "a day after"
    days_offset: int
    direction: str  # "after" | "before"


# -- values not taken (negative traces) --------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class NotTakenCategory:
    what: Literal["category"] = "category"
    words: str
    #: The category the words report; absent when the value table left it (the table is
    #: asked about the words, not the category).
    category: str | None = None
    #: Why it was set aside ("round_up", or the kind of page block it stood in: "caption");
    #: absent: simply not taken.
    taken_as: str | None = None


@dataclass(frozen=True, kw_only=True)
class NotTakenFigure:
    what: Literal["figure"] = "figure"
    words: str
    measure: str
    low: int | None
    high: int | None
    #: The role it was given ("running_total"); absent: simply not taken.
    taken_as: str | None = None


@dataclass(frozen=True, kw_only=True)
class NotTakenDate:
    what: Literal["date"] = "date"
    words: str
    iso: str | None = None  # absent for a date named in passing, which dates nothing
    taken_as: str  # "report": dating the report, not the event; "passing": dating nothing


@dataclass(frozen=True, kw_only=True)
class NotTakenPlace:
    what: Literal["place"] = "place"
    words: str
    gazetteer_id: str
    taken_as: str | None  # the place's role ("dateline", "who_speaks"); None: not a place


@dataclass(frozen=True, kw_only=True)
class NotTakenWeapon:
    what: Literal["weapon"] = "weapon"
    words: str
    weapon: str


@dataclass(frozen=True, kw_only=True)
class NotTakenTarget:
    what: Literal["target"] = "target"
    words: str
    target_type: str
    #: The role it was given ("care": a place of care named, not hit); absent: not taken.
    taken_as: str | None = None


NotTakenValue = (NotTakenCategory | NotTakenFigure | NotTakenDate | NotTakenPlace
                 | NotTakenWeapon | NotTakenTarget)

ClaimValue = (CategoryValue | PlaceValue | DateValue | FigureValue | WeaponValue | TargetValue
              | PerpetratorValue | DenialValue | MilitaryObjectiveValue
              | NoMilitaryObjectiveValue | CivilianStatusValue | StatementValue
              | RelativeDateValue | NotTakenValue)

#: The value class of each claim kind but ``not_taken`` (see NOT_TAKEN_VALUES).
CLAIM_VALUES: Final[Mapping[str, type[ClaimValue]]] = types.MappingProxyType({
    "category": CategoryValue,
    "place": PlaceValue,
    "date": DateValue,
    **{measure: FigureValue for measure in FIGURE_KINDS},
    "weapon": WeaponValue,
    "target": TargetValue,
    "perpetrator": PerpetratorValue,
    "denial": DenialValue,
    "military_objective": MilitaryObjectiveValue,
    "no_military_objective": NoMilitaryObjectiveValue,
    "civilian_status": CivilianStatusValue,
    "statement": StatementValue,
    "relative_date": RelativeDateValue,
})

#: The value class of a ``not_taken`` claim, by what it records.
NOT_TAKEN_VALUES: Final[Mapping[str, type[NotTakenValue]]] = types.MappingProxyType({
    cls.what: cls for cls in (NotTakenCategory, NotTakenFigure, NotTakenDate, NotTakenPlace,
                              NotTakenWeapon, NotTakenTarget)
})

#: The keys of a claim as serialised (Claim.as_json()), in order: the columns of a claim row
#: and the claim fields of the results digest (results format 2).
CLAIM_RECORD_FIELDS: Final = (
    "kind", "value", "rule", "item_id", "char_start", "char_end", "quote", "sentence_start",
    "sentence_end", "attributed_to", "speaker_role", "source_kind", "party", "verb",
    "evidentiality", "qualifiers", "also_attributed",
)

#: The columns of a stored incident mention as extraction writes them into its results digest.
MENTION_RECORD_FIELDS: Final = (
    "key", "situation", "categories", "place_name", "place", "lat", "lon", "date_start",
    "date_end", "date_precision", "date_expression", "date_basis", "char_start", "char_end",
)


def value_class(kind: str, what: object = None) -> type[ClaimValue]:
    """The class of a ``kind`` claim's value (for ``not_taken``, of the ``what`` it records)."""
    if kind == NOT_TAKEN:
        cls = NOT_TAKEN_VALUES.get(what) if isinstance(what, str) else None
        if cls is None:
            raise ClaimValueError(f"a {kind} claim value: key 'what' is {what!r}, not one of "
                                  f"{', '.join(NOT_TAKEN_VALUES)}")
        return cls
    found = CLAIM_VALUES.get(kind)
    if found is None:
        raise ClaimValueError(f"no claim kind {kind!r}")
    return found


def is_not_taken(value: ClaimValue) -> TypeGuard[NotTakenValue]:
    """Is ``value`` the value of a ``not_taken`` claim?"""
    return type(value) in NOT_TAKEN_VALUES.values()


def taken_as(value: NotTakenValue) -> str | None:
    """The role a value not taken was given ("dateline", "running_total"); None when it was
    only left (or, for a place, read as no place at all)."""
    if isinstance(value, NotTakenFigure | NotTakenDate | NotTakenPlace | NotTakenTarget):
        return value.taken_as
    return None


def fits(kind: str, value: ClaimValue) -> bool:
    """Is ``value`` of the class a ``kind`` claim's value has?"""
    if kind == NOT_TAKEN:
        return is_not_taken(value)
    return CLAIM_VALUES.get(kind) is type(value)


@dataclass(frozen=True)
class _Field:
    name: str
    hint: Any
    omitted_when_none: bool  # its default is None: left out while None


def _read_fields(cls: type[ClaimValue]) -> tuple[_Field, ...]:
    hints = get_type_hints(cls)
    return tuple(_Field(f.name, hints[f.name], f.default is None)
                 for f in dataclasses.fields(cls))


_FIELDS: Final = {cls: _read_fields(cls)
                  for cls in {*CLAIM_VALUES.values(), *NOT_TAKEN_VALUES.values()}}


def _fields(cls: type[ClaimValue]) -> tuple[_Field, ...]:
    return _FIELDS[cls]


def field_names(cls: type[ClaimValue]) -> tuple[str, ...]:
    """The keys a value of ``cls`` may have, in the order they are written."""
    return tuple(f.name for f in _fields(cls))


def to_json(value: ClaimValue) -> dict[str, Any]:
    """The one JSON form of a claim value (see the module docstring for its rule)."""
    out: dict[str, Any] = {}
    for f in _fields(type(value)):
        item = getattr(value, f.name)
        if item is None and f.omitted_when_none:
            continue
        out[f.name] = list(item) if isinstance(item, tuple) else item
    return out


def from_json(kind: str, data: Mapping[str, Any]) -> ClaimValue:
    """A ``kind`` claim's value read back from its JSON form; refuses an unknown or missing
    key and a value of the wrong type (:class:`ClaimValueError`, naming kind and key)."""
    if not isinstance(data, Mapping):
        raise ClaimValueError(f"a {kind} claim value is {type(data).__name__}, not an object")
    cls = value_class(kind, data.get("what"))
    fields = {f.name: f for f in _fields(cls)}
    unknown = [key for key in data if key not in fields]
    if unknown:
        raise ClaimValueError(f"a {kind} claim value has key {unknown[0]!r}, which a {kind} "
                              f"value does not have (it has {', '.join(fields)})")
    values: dict[str, Any] = {}
    for name, f in fields.items():
        if name not in data:
            if f.omitted_when_none:
                continue
            raise ClaimValueError(f"a {kind} claim value lacks key {name!r}")
        item = data[name]
        if not _is(item, f.hint):
            raise ClaimValueError(f"a {kind} claim value has key {name!r} = {item!r}, which "
                                  f"is not {_shown(f.hint)}")
        values[name] = tuple(item) if isinstance(item, list) else item
    return cls(**values)


def not_taken_from_json(data: Mapping[str, Any]) -> NotTakenValue:
    """A ``not_taken`` claim's value read back from its JSON form (as :func:`from_json`)."""
    value = from_json(NOT_TAKEN, data)
    if not is_not_taken(value):  # pragma: no cover - value_class gives a not-taken class
        raise ClaimValueError(f"a {NOT_TAKEN} claim value: {type(value).__name__}")
    return value


def _is(item: Any, hint: Any) -> bool:
    """Does a JSON value fit the type hint of a value field?"""
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        return any(_is(item, option) for option in get_args(hint))
    if origin is Literal:
        return any(type(item) is type(option) and item == option for option in get_args(hint))
    if origin is tuple:
        (member, _ellipsis) = get_args(hint)
        return isinstance(item, list | tuple) and all(_is(i, member) for i in item)
    if hint is type(None):
        return item is None
    if hint in (int, str, bool):
        return type(item) is hint  # True is no count, 1 is no flag
    raise TypeError(f"claim value fields may not have type {hint!r}")  # pragma: no cover


def _shown(hint: Any) -> str:
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        return " or ".join(_shown(option) for option in get_args(hint))
    if origin is Literal:
        return " or ".join(repr(option) for option in get_args(hint))
    if origin is tuple:
        return f"a list of {_shown(get_args(hint)[0])}"
    if hint is type(None):
        return "null"
    return {int: "a whole number", str: "a string", bool: "true or false"}.get(hint, str(hint))
