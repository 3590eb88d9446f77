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
  tells the two apart (1-20 km against 17-60 km). Never read ``district`` as "exact", and do
  not rank it above ``settlement`` without looking at ``uncertainty_km``.
* ``settlement``: the centre of the named town or village, as GeoNames records it.
* ``region``: only an area larger than a settlement is known: an oblast (or Crimea), placed at
  its administrative centre, or a raion, placed at the middle of its located places. Water
  bodies (seas, rivers, reservoirs) are of this precision too: their coordinate marks the
  middle of their Ukrainian part.
* ``country``: only the country is known; the coordinate is the capital (Ukraine: its
  geographic centre).

The precision names what the coordinate stands for; ``Place.uncertainty_km`` says how far off
it may be, and is the figure to rank places by (see :class:`Place`).
"""

PRECISIONS: tuple[Precision, ...] = ("point", "district", "settlement", "region", "country")

FeatureKind = Literal[
    "settlement",  # a city, town or village (GeoNames populated place, KATOTTG M/T/X/C)
    "city_district",  # a district or neighbourhood of a city
    "feature",  # a named site: island, bridge, plant, airport, building
    "water_body",  # a sea, strait, river, reservoir or estuary (precision "region")
    "region",  # an oblast, Crimea, a city with special status, a border region abroad, or a
    # raion (a second-level district of an oblast; see Place.is_raion)
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
    ``uncertainty_km`` is a radius around the coordinate within which the place (or, for an
    area, any spot in it) lies in about nine cases out of ten; it is always set, so places may
    be ranked by it. Its ranges: a point feature 0.3-8 km; a city district 1-5 km (shipped),
    3-9 km (from GeoNames), 5-12 km (from KATOTTG, placed at its city's point); a settlement
    2.5-20 km (2.5 + sqrt(population) / 100: a village about 3, a town of 100,000 about 6,
    Kharkiv 14.4, Kyiv 19.7; megacities abroad up to 52); a village placed at its hromada's
    centre 17-30 km, at its raion's 25-60 km (at its oblast's centre, the oblast's radius); a
    raion 22-146 km; an oblast 20 (Kyiv City) to 220 km (Odesa Oblast), a border region abroad
    140-310 km; a water body 8-550 km; a country 50-2,068 km (Ukraine 700). Ranked by it, a
    village placed by its hromada comes after every located settlement of Ukraine but Kyiv,
    and an oblast, raion or country after every located settlement of Ukraine.
    ``placed_at`` says in words how a coarse coordinate was obtained (empty for a place's own
    coordinate). ``parent`` names the units a place lies in ("Vilkhivska hromada, Kharkivskyi
    raion"), a city district's or site's city, or a raion's oblast (an oblast has none: see
    :attr:`is_raion`).
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

    @property
    def is_raion(self) -> bool:
        """A raion of Ukraine (``"Kharkivskyi raion"``): feature_kind ``"region"``, precision
        ``"region"``, ``admin1`` and ``parent`` its oblast. An oblast has no parent."""
        return self.feature_kind == "region" and bool(self.parent)


@dataclass(frozen=True, slots=True)
class PlaceContext:
    """What the rest of a document says about where things happened.

    ``admin1`` holds region names mentioned anywhere in the document, in any spelling the
    gazetteer understands (``"Kharkiv oblast"``, ``"Kharkivska"``), and may hold raion names
    (``"Kharkivskyi"``, ``"Kharkivskyi raion"``, ``"Kramatorsk district"``): a weak hint, used
    only when a candidate lies inside. ``nearby`` holds (lat, lon) of places already resolved
    in the same document. ``within`` holds the names the text attaches to this very mention as
    its locators, as written: the raion and oblast of "Vilkhivka (Kharkivskyi, Kharkiv)", the
    city of "Shevchenkivskyi district of Kyiv" (see :attr:`ToponymMention.locates`). They
    weigh like the qualifiers of a query: ``resolve("Vilkhivka", PlaceContext(within=
    ("Kharkivskyi", "Kharkiv")))`` equals ``resolve("Vilkhivka, Kharkivskyi, Kharkiv")``.
    ``country`` is the ISO code assumed when a name exists in several countries.

    ``local_admin1`` and ``local_nearby`` are the same kinds of hint taken only from the
    mention's own sentence, else its own paragraph or record (``"Province: Zaporizhzhia
    Oblast. Town/city: Zaporizhia."``): a region named there outweighs the regions of
    ``admin1``, and nearness to ``local_nearby`` is weighed before nearness to ``nearby``.
    Neither outweighs a locator (``within``), and neither makes an oblast's centre, a variant
    spelling of a big city ("Zaporizhia", "Kharkov") or a well-known town's own name a hamlet
    of that name (see :mod:`casebuilder.gazetteer.resolver`).
    """

    admin1: tuple[str, ...] = ()
    nearby: tuple[tuple[float, float], ...] = ()
    country: str = "UA"
    within: tuple[str, ...] = ()
    local_admin1: tuple[str, ...] = ()
    local_nearby: tuple[tuple[float, float], ...] = ()


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
    #: Other places of the name that nothing in the query or document told apart from the
    #: chosen one (the choice among them was by gazetteer id); empty when the choice was made
    #: on evidence. Later stages may settle it with evidence from other documents.
    undecided: tuple[Place, ...] = field(default=())

    @property
    def resolved(self) -> bool:
        return self.place is not None


@dataclass(frozen=True, slots=True)
class ToponymMention:
    """A gazetteer name found in running text: character offsets into the text, the text as
    written (a possessive "'s" is left out), and the places it may stand for (most likely
    first; never empty).

    :attr:`kind` says what the name most likely is: ``"country"``, ``"region"`` (an oblast
    or a raion), ``"settlement"``, ``"city_district"``, ``"feature"`` (a site such as a bridge
    or a plant) or ``"water_body"`` (a sea, river or reservoir, never a settlement).

    :attr:`locates` is the index, in the same list of mentions, of the mention this one only
    locates: the raion and oblast of "Vilkhivka (Kharkivskyi, Kharkiv)", "Merefa, Kharkiv
    Oblast", "Hroza in the Kupianskyi district of the Kharkiv region", the city of
    "Shevchenkivskyi district of Kyiv" or "Kyiv's Obolon district". None for a mention that
    names a place in its own right. A locator is not a place where something happened; pass
    its text in :attr:`PlaceContext.within` when resolving the mention it locates (as
    :meth:`Gazetteer.resolve_mentions` does). A locator that names an oblast or raion lists
    that region first among its candidates, even where the bare name is also a city's
    ("Kharkiv" in "(Kharkivskyi, Kharkiv)").

    :attr:`dateline` is True for the place name of a dateline: a name written in capitals at
    the start of a paragraph and followed by a comma or a dash ("KYIV —", "MOSCOW, 2 March
    2023 —", "KRAMATORSK, Ukraine (April 8) -", "LVIV (Reuters) -"), and for the names that
    complete it before its dash ("Ukraine" there). It says where the report was filed, not
    where something happened. :meth:`Gazetteer.resolve_mentions` does not count a dateline as
    local context of the paragraph it opens.

    :attr:`sentence` and :attr:`paragraph` number the sentence and the paragraph (or record:
    a block of lines between blank lines) the mention lies in, counted from 0 over the text
    given to :meth:`Gazetteer.find_toponyms`; -1 when unknown (a mention built by hand).
    :meth:`Gazetteer.resolve_mentions` weighs the regions and places named in the same
    sentence, then the same paragraph, before those named elsewhere in the document.
    """

    start: int
    end: int
    text: str
    candidates: tuple[Place, ...]
    locates: int | None = None
    dateline: bool = False
    sentence: int = -1
    paragraph: int = -1

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
