"""The values the gazetteer hands out: places, the context of a query, and resolutions.

Part of the gazetteer, the reference layer below the stages. Extraction and the ``geocode``
command receive these objects; resolution and reporting read their coordinates, precision and
``uncertainty_km`` to decide how far a location can be trusted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Precision = Literal["point", "district", "settlement", "region", "country"]
"""What a coordinate stands for.

* ``point``: a named feature small enough to be a spot (a bridge, a steel works, an island).
* ``district``: the centre of an area inside or around a settlement that is not the named place
  itself, namely a city district (Obolon in Kyiv), or, for a village known from KATOTTG but
  absent from GeoNames, the centre of the hromada (or raion) it belongs to. ``uncertainty_km``
  tells the two apart (a few km against 10-25 km). Never read ``district`` as "exact".
* ``settlement``: the centre of the named town or village, as GeoNames records it.
* ``region``: the administrative centre of the oblast (or Crimea); only the region is known.
  Water bodies (seas, rivers, reservoirs) are of this precision too: their coordinate marks
  the middle of their Ukrainian part.
* ``country``: only the country is known; the coordinate is the capital (Ukraine: its
  geographic centre).
"""

PRECISIONS: tuple[Precision, ...] = ("point", "district", "settlement", "region", "country")

FeatureKind = Literal[
    "settlement",  # a city, town or village (GeoNames populated place, KATOTTG M/T/X/C)
    "city_district",  # a district or neighbourhood of a city
    "feature",  # a named site: island, bridge, plant, airport, building
    "water_body",  # a sea, strait, river, reservoir or estuary (precision "region")
    "region",  # an oblast, Crimea, a city with special status, or a border region abroad
    "country",
]


@dataclass(frozen=True, slots=True)
class Place:
    """One place the gazetteer knows, with a coordinate and what that coordinate is worth.

    ``country`` is the ISO 3166-1 alpha-2 code (``"UA"``). Places in occupied Crimea and in
    the occupied parts of other oblasts are ``"UA"``, as in GeoNames, ISO 3166 and UN General
    Assembly resolution 68/262; a sea or strait in international waters is ``"XZ"``.
    ``admin1`` is the English name of the first-level unit (``"Kharkiv Oblast"``,
    ``"Kyiv City"``, ``"Crimea"``, or abroad a border region such as ``"Kursk Oblast"``),
    empty when unknown or, for a river, when it crosses several regions.
    ``gazetteer_id`` names the source and its key: ``geonames:706483``,
    ``katottg:UA63120170010044765``, ``casebuilder:kyiv-obolon``.
    ``uncertainty_km`` is a rough radius within which the real place lies; ``placed_at`` says
    in words how a coarse coordinate was obtained (empty for a place's own coordinate).
    """

    name: str
    lat: float
    lon: float
    admin1: str
    country: str
    gazetteer_id: str
    precision: Precision
    feature_kind: FeatureKind
    population: int | None = None
    uncertainty_km: float = 5.0
    local_name: str = ""
    parent: str = ""
    placed_at: str = ""

    @property
    def coordinates(self) -> tuple[float, float]:
        return (self.lat, self.lon)


@dataclass(frozen=True, slots=True)
class PlaceContext:
    """What the rest of a document says about where things happened.

    ``admin1`` holds region names mentioned in the document, in any spelling the gazetteer
    understands (``"Kharkiv oblast"``, ``"Kharkivska"``); ``nearby`` holds (lat, lon) of places
    already resolved in the same document; ``country`` is the ISO code assumed when a name
    exists in several countries.
    """

    admin1: tuple[str, ...] = ()
    nearby: tuple[tuple[float, float], ...] = ()
    country: str = "UA"


@dataclass(frozen=True, slots=True)
class Candidate:
    """A place considered for a query, with how its name matched.

    ``match`` is ``"exact"`` (same normalised name), ``"fold"`` (same name up to
    romanisation differences) or ``"fuzzy"`` (one or two letters apart). ``alternate`` is
    True when the name matched only one of GeoNames' alternate names for the place (another
    language, a former name, the name of a merged village), not one of its own names.
    """

    place: Place
    matched_name: str
    match: Literal["exact", "fold", "fuzzy"]
    alternate: bool = False


@dataclass(frozen=True, slots=True)
class Resolution:
    """The answer to one query: the chosen place (or None), the name that matched, every
    candidate considered (best first), and a short reason a person can check."""

    query: str
    place: Place | None
    matched_name: str
    candidates: tuple[Candidate, ...] = field(default=())
    reason: str = ""

    @property
    def resolved(self) -> bool:
        return self.place is not None


@dataclass(frozen=True, slots=True)
class ToponymMention:
    """A gazetteer name found in running text: character offsets into the text, the text as
    written (a possessive "'s" is left out), and the places it may stand for (most likely
    first; never empty).

    :attr:`kind` says what the name most likely is: ``"country"``, ``"region"``,
    ``"settlement"``, ``"city_district"``, ``"feature"`` (a site such as a bridge or a plant)
    or ``"water_body"`` (a sea, river or reservoir, never a settlement).
    """

    start: int
    end: int
    text: str
    candidates: tuple[Place, ...]

    @property
    def place(self) -> Place:
        """The most likely place."""
        return self.candidates[0]

    @property
    def kind(self) -> FeatureKind:
        """What kind of place the name most likely stands for (the first candidate's kind)."""
        return self.candidates[0].feature_kind

    @property
    def country(self) -> str:
        """ISO code of the most likely place's country ("XZ" for international waters)."""
        return self.candidates[0].country
