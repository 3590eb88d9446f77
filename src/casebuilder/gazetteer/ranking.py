"""How the candidate places of one name are ranked: one ordered list of criteria.

Part of the gazetteer, the reference layer below the stages. :meth:`.Gazetteer.resolve`
narrows a name's candidates by the regions and raions a query and its document name, then
ranks what is left with :func:`rank`; :func:`explain` says why the first one won and
:func:`tied` which candidates nothing told apart from it (``Resolution.undecided``). All three
read :data:`RANKING`, so the order of the sort, the reason a person reads and the tie an
analyst settles can never disagree.

:data:`RANKING`, in order (each criterion's own doc says how it scores and explains):

1. ``spelling``: a name matched exactly or up to romanisation before one a letter or two off;
2. ``well_known_town``: not a hamlet whose name a well-known town has (:func:`outranks`);
3. ``near_beside``: nearness to the places named beside the mention, in distance bands;
4. ``near_document``: nearness to the anchors of the query and the document's other places;
5. ``own_name``: the place's own name before an alternate name GeoNames lists;
6. ``kind``: the kind of place (a located settlement before a village placed from KATOTTG,
   before a region; a raion first when the query says "raion");
7. ``population``: the larger first;
8. ``gazetteer_id``: the tie-break, so the answer never depends on chance (a choice made by
   it alone is a tie: the others are ``undecided``).

The figures (distance bands, population thresholds, kind ranks, the precision rule of
:attr:`Place.precision_rank`) live in ``data/ranking.toml``, each with where it came from.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from casebuilder.gazetteer.build import HOME_COUNTRY
from casebuilder.gazetteer.geo import Coordinates, nearest_distance_km
from casebuilder.gazetteer.model import Candidate, Place, Thresholds, load_thresholds, thresholds
from casebuilder.gazetteer.normalise import normalise_toponym

Score = int | float | str

__all__ = ["RANKING", "Criterion", "Situation", "Thresholds", "band", "big_city", "decided",
           "describe", "explain", "kind_rank", "load_thresholds", "outranks", "rank", "tied",
           "undecided"]


@dataclass(frozen=True, slots=True)
class Situation:
    """What the ranking of one query's candidates may look at besides the candidates.

    ``beside`` are the places named beside the mention (its paragraph), ``anchors`` the
    towns the query names with it and the document's other places, ``anchor_places`` the
    towns themselves; ``raion_first`` is set when the query says "raion" and a raion is among
    the candidates; ``head_key`` is the normalised name as written (empty: no
    :func:`outranks`); ``capitals`` the gazetteer ids of the oblasts' centres; ``big`` the
    candidates that may outrank hamlets (set by :func:`rank`)."""

    beside: tuple[Coordinates, ...] = ()
    anchors: tuple[Coordinates, ...] = ()
    anchor_places: tuple[Place, ...] = ()
    raion_first: bool = False
    head_key: str = ""
    capitals: frozenset[str] = frozenset()
    figures: Thresholds = field(default_factory=thresholds)
    big: tuple[Candidate, ...] = ()


Explain = Callable[[Candidate, Sequence[Candidate], Situation], str | None]


@dataclass(frozen=True, slots=True)
class Criterion:
    """One criterion of the ranking: ``score`` gives a candidate's sort value (lower first);
    ``explain`` gives the reason when this criterion is what put ``best`` (the first of the
    ranked candidates) first, None when it is not; ``evidence`` is False for the final
    tie-break, which chooses without telling anything."""

    name: str
    doc: str
    score: Callable[[Candidate, Situation], Score]
    explain: Explain
    evidence: bool = True


# --- the criteria ---------------------------------------------------------------------------


def _spelling(candidate: Candidate, situation: Situation) -> int:
    return 1 if candidate.match == "fuzzy" else 0


def _explain_spelling(best: Candidate, ranked: Sequence[Candidate], s: Situation) -> str | None:
    if best.match != "fuzzy" and any(c.match == "fuzzy" for c in ranked[1:]):
        return f"{len(ranked)} candidates; the only one spelt as written"
    return None


def _well_known_town(candidate: Candidate, situation: Situation) -> int:
    return 1 if any(outranks(b, candidate, situation) for b in situation.big) else 0


def _explain_well_known(best: Candidate, ranked: Sequence[Candidate], s: Situation) -> str | None:
    if s.head_key and any(outranks(best, c, s) for c in ranked[1:]):
        return (f"{len(ranked)} candidates; a town of {best.place.population:,} people "
                "before hamlets of its name")  # fmt: skip
    return None


def band(distance: float, figures: Thresholds) -> int:
    """The distance band of ``distance`` km: 0 within the first band's limit, ... , one past
    the last band beyond every limit (and for no places at all)."""
    limits = figures.bands_km
    if math.isinf(distance):
        return len(limits)
    return next((i for i, limit in enumerate(limits) if distance <= limit), len(limits))


def _near_beside(candidate: Candidate, situation: Situation) -> int:
    if not situation.beside:
        return 0
    return band(nearest_distance_km(candidate.place, situation.beside), situation.figures)


def _explain_beside(best: Candidate, ranked: Sequence[Candidate], s: Situation) -> str | None:
    if s.beside and _near_beside(best, s) < max(_near_beside(c, s) for c in ranked):
        distance = nearest_distance_km(best.place, s.beside)
        return f"nearest to the places named beside it ({distance:.0f} km)"
    return None


def _near_document(candidate: Candidate, situation: Situation) -> int:
    if not situation.anchors:
        return 0
    return band(nearest_distance_km(candidate.place, situation.anchors), situation.figures)


def _explain_document(best: Candidate, ranked: Sequence[Candidate], s: Situation) -> str | None:
    if s.anchors and _near_document(best, s) < max(_near_document(c, s) for c in ranked):
        what = ", ".join(p.name for p in s.anchor_places) or "other places in the document"
        distance = nearest_distance_km(best.place, s.anchors)
        return f"nearest to {what} ({distance:.0f} km)"
    return None


def _own_name(candidate: Candidate, situation: Situation) -> int:
    return 1 if candidate.alternate else 0


def _explain_own_name(best: Candidate, ranked: Sequence[Candidate], s: Situation) -> str | None:
    if ranked[1].alternate and not best.alternate:
        return f"{len(ranked)} candidates; the only one with this name as its own"
    return None


def kind_rank(place: Place, anchor_places: Sequence[Place], figures: Thresholds) -> int:
    """The rank of a place's kind (``[kind]`` of the ranking file), lower first: a city
    district of one of ``anchor_places`` ranks as a located settlement."""
    ranks = figures.kinds
    if place.feature_kind == "settlement" and place.precision != "settlement":
        return ranks["village_placed_coarsely"]
    if place.feature_kind == "city_district" and any(
        place.parent == a.name or place.parent == a.parent for a in anchor_places
    ):
        return ranks["city_district_of_anchor"]
    return ranks[place.feature_kind]


def _kind(candidate: Candidate, situation: Situation) -> int:
    if situation.raion_first and candidate.place.is_raion:
        return situation.figures.kinds["raion_named"]
    return kind_rank(candidate.place, situation.anchor_places, situation.figures)


def _explain_kind(best: Candidate, ranked: Sequence[Candidate], s: Situation) -> str | None:
    if _kind(best, s) >= _kind(ranked[1], s):
        return None
    if s.raion_first and best.place.is_raion:
        return f"{len(ranked)} candidates; the query names a raion"
    return f"{len(ranked)} candidates; the best-located kind of place"


def _population(candidate: Candidate, situation: Situation) -> int:
    return -(candidate.place.population or 0)


def _explain_population(best: Candidate, ranked: Sequence[Candidate], s: Situation
                        ) -> str | None:
    if (best.place.population or 0) > (ranked[1].place.population or 0):
        return f"{len(ranked)} candidates; largest population ({best.place.population:,})"
    return None


def _gazetteer_id(candidate: Candidate, situation: Situation) -> str:
    return candidate.place.gazetteer_id


def _explain_tie(best: Candidate, ranked: Sequence[Candidate], s: Situation) -> str | None:
    return (f"ambiguous: {len(tied(best, ranked, s))} candidates equally likely, first by "
            "gazetteer id taken")  # fmt: skip


RANKING: tuple[Criterion, ...] = (
    Criterion("spelling", "A name matched exactly or up to romanisation before one found one "
              "or two letters off.", _spelling, _explain_spelling),
    Criterion("well_known_town", "Not a hamlet or village whose name a well-known town of the "
              "candidates has (see outranks): that town is meant wherever the document's "
              "places lie.", _well_known_town, _explain_well_known),
    Criterion("near_beside", "Nearness to the places named beside the mention (its own "
              "paragraph), in the distance bands of [distance] bands_km.",
              _near_beside, _explain_beside),
    Criterion("near_document", "Nearness to the towns the query names with it and to the "
              "document's other places, in the same bands.", _near_document,
              _explain_document),
    Criterion("own_name", "A match on the place's own name before one on an alternate name "
              "GeoNames lists (a former name, the name of a merged village).", _own_name,
              _explain_own_name),
    Criterion("kind", "The kind of place, by [kind] of the ranking file: a located "
              "settlement, site or water body, then a city district, then a village placed "
              "coarsely from KATOTTG, then a region, then a country; a raion first when the "
              "query says 'raion'.", _kind, _explain_kind),
    Criterion("population", "The larger population first.", _population, _explain_population),
    Criterion("gazetteer_id", "The gazetteer id, so the answer never depends on chance; a "
              "choice made by it alone is a tie.", _gazetteer_id, _explain_tie,
              evidence=False),
)
"""The ranking, in order: the sort key, the reason and the tie all come from here."""
_SCORES = tuple(criterion.score for criterion in RANKING)  # the sort key's, in that order


# --- what the ranking gives -----------------------------------------------------------------


def rank(candidates: Sequence[Candidate], situation: Situation,
         among: Sequence[Candidate] | None = None) -> list[Candidate]:
    """The candidates (one per gazetteer id, the first given), best first by :data:`RANKING`;
    ``among``, when given, is the larger set they were taken from, whose well-known towns
    count (so that ranking part of a set orders it as ranking the whole set would)."""
    unique: dict[str, Candidate] = {}
    for candidate in candidates:
        unique.setdefault(candidate.place.gazetteer_id, candidate)
    found = list(unique.values())
    if len(found) < 2:
        return found  # nothing to order
    if situation.head_key:
        situation = _with_big(situation, found if among is None else among)
    return sorted(found, key=lambda c: sort_key(c, situation))


def _with_big(situation: Situation, found: Sequence[Candidate]) -> Situation:
    """The situation with the candidates that may outrank hamlets (the well-known town
    criterion's score reads them; its explanation asks :func:`outranks` directly)."""
    return replace(situation, big=tuple(c for c in found if big_city(c, situation.figures)))


def sort_key(candidate: Candidate, situation: Situation) -> tuple[Score, ...]:
    return tuple([score(candidate, situation) for score in _SCORES])


def explain(ranked: Sequence[Candidate], situation: Situation) -> str:
    """Why the first of ``ranked`` (as :func:`rank` returned them) is first: the explanation
    of the first criterion in :data:`RANKING` that tells it apart."""
    if len(ranked) == 1:
        return "only candidate"
    best = ranked[0]
    for criterion in RANKING:
        reason = criterion.explain(best, ranked, situation)
        if reason is not None:
            return reason
    raise AssertionError("the last criterion always explains")  # pragma: no cover


def decided(ranked: Sequence[Candidate], situation: Situation) -> bool:
    """Whether evidence chose the first of ``ranked`` (not the tie-break alone)."""
    if len(ranked) == 1:
        return True
    best = ranked[0]
    return any(c.evidence and c.explain(best, ranked, situation) is not None for c in RANKING)


def tied(best: Candidate, ranked: Sequence[Candidate], situation: Situation) -> list[Candidate]:
    """The candidates nothing tells apart from ``best`` (itself included): equal to it on
    every criterion of :data:`RANKING` but the tie-break."""
    situation = _with_big(situation, ranked) if situation.head_key else situation
    evidence = [c for c in RANKING if c.evidence]
    mine = [c.score(best, situation) for c in evidence]
    return [c for c in ranked if [k.score(c, situation) for k in evidence] == mine]


# --- well-known towns -----------------------------------------------------------------------


def big_city(candidate: Candidate, figures: Thresholds) -> bool:
    """A located town of the home country of ``[population] well_known`` people or more,
    matched on its name or a spelling of it (not one or two letters off): one that may
    outrank hamlets of its name."""
    place = candidate.place
    return (
        candidate.match != "fuzzy"
        and place.feature_kind == "settlement"
        and place.precision == "settlement"
        and place.country == HOME_COUNTRY
        and (place.population or 0) >= figures.well_known_population
    )


def outranks(big: Candidate, small: Candidate, situation: Situation) -> bool:
    """Whether ``big`` is meant rather than ``small`` wherever the document's other places
    lie: ``small`` is a hamlet or village (under ``well_known`` people, or placed only by
    KATOTTG) and ``big`` either a well-known town whose own name is written exactly while
    ``small`` matches only up to romanisation or by an alternate name ("Sumy", not a Shumy),
    or the administrative centre of an oblast (one of ``situation.capitals``) or a prominent
    city written in one of its own spellings that is not its official name ("Zaporizhia",
    "Kharkov", "Nikolaev", "Kiev"; not an alternate name such as that of a village merged
    into it), which hamlets of that name do not outweigh even when spelt so exactly. Another
    city's official name written exactly ("Kamianske") decides nothing: nearness then
    chooses, as a village of that name near the front is as likely as the city."""
    figures = situation.figures
    if big is small or not big_city(big, figures):
        return False
    if (small.place.population or 0) >= figures.well_known_population or (
        small.place.feature_kind not in ("settlement", "city_district")
    ):
        return False
    if big.match == "exact" and not big.alternate and (small.match != "exact" or small.alternate):
        return True
    if big.alternate:
        return False  # an alternate name may be another place's ("Oleksandrivka" in Donetsk)
    if big.place.gazetteer_id in situation.capitals:
        return True
    if (big.place.population or 0) < figures.prominent_population:
        return False
    official = {normalise_toponym(big.place.name), normalise_toponym(big.place.local_name)}
    return situation.head_key not in official


def describe() -> str:
    """The ranking in words, one line per criterion, in order (for docs and the guide)."""
    return "\n".join(f"{n}. {c.name}: {c.doc}" for n, c in enumerate(RANKING, start=1))



def undecided(ranked: Sequence[Candidate], situation: Situation) -> list[Candidate]:
    """The other candidates nothing told apart from the first of ``ranked`` when the
    tie-break alone chose it; empty when evidence chose."""
    if decided(ranked, situation):
        return []
    return [c for c in tied(ranked[0], ranked, situation) if c is not ranked[0]]
