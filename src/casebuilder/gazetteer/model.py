"""The values the gazetteer hands out: places, the context of a query, and resolutions.

Part of the gazetteer, the reference layer below the stages. Extraction and the ``geocode``
command receive these objects; resolution and reporting read their coordinates, precision and
``uncertainty_km`` to decide how far a location can be trusted.
"""

from __future__ import annotations

import functools
import hashlib
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from casebuilder.model.lexicon import LexiconError, check_keys, key_line

RANKING_FILE = Path(__file__).parent / "data" / "ranking.toml"

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
        """A raion of Ukraine (``"Kharkivskyi raion"``: ``parent`` its oblast) or a hromada,
        the unit below it (``"Vilkhivska hromada"``: ``parent`` its raion): feature_kind
        ``"region"``, precision ``"region"``, ``admin1`` its oblast. Both are areas a query or
        text names to narrow a name down ("Hroza, Shevchenkivska hromada"). An oblast has no
        parent."""
        return self.feature_kind == "region" and bool(self.parent)

    @property
    def is_hromada(self) -> bool:
        """A hromada (see :attr:`is_raion`)."""
        return self.is_raion and self.name.endswith(" hromada")

    @property
    def precision_rank(self) -> float:
        """How coarse the coordinate is, lower more precise: see :func:`precision_rank`."""
        return precision_rank(self.precision, self.uncertainty_km)


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
    romanisation differences), ``"form"`` (the Russian-style form of the name: Kharkov,
    Orekhov, Andreevka; see :mod:`casebuilder.gazetteer.spellings`) or ``"fuzzy"`` (one or
    two letters apart). ``alternate`` is
    True when the name matched only one of GeoNames' alternate names for the place (another
    language, a former name, the name of a merged village), not one of its own names.
    """

    place: Place
    matched_name: str
    match: Literal["exact", "fold", "form", "fuzzy"]
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


# --- the figures of data/ranking.toml -------------------------------------------------------

_RANKING_TABLES: dict[str, frozenset[str]] = {
    "distance": frozenset({"bands_km", "beside_km"}),
    "population": frozenset({"well_known", "prominent"}),
    "kind": frozenset({"settlement", "feature", "water_body", "city_district",
                       "city_district_of_anchor", "village_placed_coarsely", "region", "country",
                       "raion_named"}),
    "precision": frozenset({*PRECISIONS, "coarse_district_km", "coarse_district_rank"}),
    "names": frozenset({"spelling_share"}),
    "places": frozenset({"outside_region_km", "city_bound_km", "named_town_gap_km"}),
}


@dataclass(frozen=True)
class Thresholds:
    """The figures of a ranking file (``data/ranking.toml``; each is explained there)."""

    bands_km: tuple[float, ...]
    beside_km: float
    well_known_population: int
    prominent_population: int
    kinds: dict[str, int]
    precision_ranks: dict[str, float]
    coarse_district_km: float
    coarse_district_rank: float
    spelling_share: float
    outside_region_km: float
    city_bound_km: float
    named_town_gap_km: float
    digest: str = ""

    @classmethod
    def from_file(cls, path: Path) -> Thresholds:
        """Read and check a ranking file: every table and key known and present, every value a
        number (the bands a rising list of them); an error names the file, line and key."""
        try:
            raw = path.read_bytes()
            text = raw.decode("utf-8")
            data = tomllib.loads(text)
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise LexiconError(f"{path}: {exc}") from exc
        check_keys(path, text, None, data, _RANKING_TABLES)
        for table, keys in _RANKING_TABLES.items():
            entry = data.get(table)
            if not isinstance(entry, dict):
                raise LexiconError(f"{path}: the table [{table}] is missing")
            check_keys(path, text, table, entry, keys)
            for key in sorted(keys):
                _number(path, text, table, key, entry)
        distance, population = data["distance"], data["population"]
        precision, places = data["precision"], data["places"]
        bands = tuple(float(b) for b in distance["bands_km"])
        return cls(
            bands_km=bands,
            beside_km=float(distance["beside_km"]),
            well_known_population=int(population["well_known"]),
            prominent_population=int(population["prominent"]),
            kinds={key: int(value) for key, value in data["kind"].items()},
            precision_ranks={key: float(precision[key]) for key in PRECISIONS},
            coarse_district_km=float(precision["coarse_district_km"]),
            coarse_district_rank=float(precision["coarse_district_rank"]),
            spelling_share=float(data["names"]["spelling_share"]),
            outside_region_km=float(places["outside_region_km"]),
            city_bound_km=float(places["city_bound_km"]),
            named_town_gap_km=float(places["named_town_gap_km"]),
            digest=hashlib.sha256(raw).hexdigest(),
        )


def _number(path: Path, text: str, table: str, key: str, entry: dict[str, Any]) -> None:
    where = f"{path}:{key_line(text, table, key) or key_line(text, table)}: [{table}] {key}"
    if key not in entry:
        raise LexiconError(f"{where} is missing")
    value = entry[key]
    if key == "bands_km":
        if not isinstance(value, list) or not value or not all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in value
        ) or sorted(value) != value:
            raise LexiconError(f"{where} must be a rising list of kilometres")
    elif not isinstance(value, int | float) or isinstance(value, bool):
        raise LexiconError(f"{where} must be a number")


def load_thresholds(path: Path) -> Thresholds:
    """The figures of a ranking file other than the shipped one (experiments, tests)."""
    return Thresholds.from_file(path)


@functools.cache
def thresholds() -> Thresholds:
    """The shipped ranking figures (``data/ranking.toml``), read once."""
    return Thresholds.from_file(RANKING_FILE)


def precision_rank(precision: str, uncertainty_km: float,
                   figures: Thresholds | None = None) -> float:
    """How coarse a coordinate of this precision and uncertainty is, lower more precise:
    point 0, district 1, settlement 2, region 3, country 4 (``[precision]`` of the ranking
    file), except that a ``district`` place more than ``coarse_district_km`` (5 km) uncertain
    is a village placed at its hromada's centre, not a city district, and ranks as
    ``coarse_district_rank`` (2.5): coarser than a located town, finer than a region. An
    unknown precision ranks last (9). This is the one home of that rule: extraction and
    resolution rank places by it."""
    figures = figures or thresholds()
    if precision == "district" and uncertainty_km > figures.coarse_district_km:
        return figures.coarse_district_rank
    return figures.precision_ranks.get(precision, 9.0)


# --- the same place -------------------------------------------------------------------------

SAME_PLACE_FLOOR_KM = 5.0
"""Within one document, a site or district this close to another place (or within either's
own radius) is in it: the floor for a site and a district that both have a radius under it (a
theatre 1 km across in a district of 2 km, their points 4 km apart). Set by hand when
extraction first compared places (it was extraction's ``_same_place``)."""


def same_place(a: Place, b: Place, *, floor_km: float = SAME_PLACE_FLOOR_KM) -> bool:
    """Whether ``a`` and ``b`` are one location at the resolution the gazetteer has: the same
    place, or a site or district and the place it lies in (a theatre in its city, a district
    and its city), that is within the larger of their radii or ``floor_km`` of each other.

    Two settlements are never one place, however close (a village is not inside the next
    town), and an area (a region, a raion or a country) is never one place with anything
    else: it contains places, it is not where they are.

    This is the notion extraction uses inside one document. Incident merging across reports
    (``resolution.merge.place_match``) asks another question, whether two reports' places
    may be one incident's: there a region contains its towns, the reach grows with the
    precision of the reports, and two point sites must lie within 1 km whatever their radii;
    it is not this function with another floor."""
    if a.gazetteer_id == b.gazetteer_id:
        return True
    areas = ("region", "country")
    if a.feature_kind in areas or b.feature_kind in areas:
        return False
    if a.feature_kind == b.feature_kind == "settlement":
        return False
    reach = max(a.uncertainty_km, b.uncertainty_km, floor_km)
    return _distance_km(a, b) <= reach


def _distance_km(a: Place, b: Place) -> float:
    # imported here, not at the top: geo imports Place from this module
    from casebuilder.gazetteer.geo import distance_km

    return distance_km(a, b)
