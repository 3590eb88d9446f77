"""Reading a free-text place string into the places it names: what ``casebuilder geocode``
answers for each line.

Part of the gazetteer, the reference layer below the stages. :meth:`.Gazetteer.geocode` calls
:func:`geocode`; the CLI prints the :class:`Geocoding` it returns. Real place strings in
datasets and reports are seldom "Town, Region, Country": they read "village of Hrushivka,
Kupiansk district, Kharkiv region", "Kupyansk in the Kharkov region.", "Saltovsky district of
Kharkov", "Zaporozhye region: in Orekhov, Gulyaipole and Preobrazhenka", "near Klishchiivka,
Bakhmut front", "LPR", or a sentence ("Damage to a school in Izium").

How a string is read (the words are in ``data/lexicon/queries.toml``):

1. It is cut into parts at commas, colons, semicolons, brackets, spaced dashes, "and", "in"
   (``place_string_separators``) and after "district of", "region of", ...
   (``district_of``); words that open a part without naming anything ("in the", "at",
   ``segment_openers``) and end punctuation are dropped.
2. A part holding a lower-case word that is not a place word (``name_words``: "village",
   "district", "near", "of", ...), or a digit, and that is not a name as a whole ("mariupol"),
   is running text: then the whole string is read with the text scanner
   (:meth:`.Gazetteer.find_toponyms` with ``loose``, so that a capitalised name matching one
   only up to romanisation counts too, and :meth:`.Gazetteer.resolve_mentions`: "Kyiv's Obolon
   district" and locators work as in a document), and every place it names that locates
   nothing is an answer, places finer than a region first.
3. Otherwise each part is a name, and has a role: an *area* (a country, an oblast in any
   spelling, the DPR or LPR included, a raion or a hromada; a later part that is only an
   oblast's name, "Vilkhivka, Kharkiv", as datasets write it), a *reference point* (a part
   with a relative position, "near Bakhmut", "12 km south of Izium", or a front named after a
   town, "Bakhmut front": ``front_words``), or a *place*. Each place is resolved with
   :meth:`.Gazetteer.resolve` with every other part as a locator (``PlaceContext.within``):
   the areas narrow it down and the other places and reference points are anchors, so
   "Orekhov" of the Zaporizhzhia example is Orikhiv of Zaporizhzhia Oblast, and each of
   "Bucha, Irpin, Hostomel" is placed near the others. The resolver's own fallbacks apply:
   Russian-style forms and letters off (:mod:`.spellings`), a site the gazetteer lacks placed
   at its town, a street placed at the town named with it.
4. A place part that is no name the gazetteer knows, which the resolver therefore cannot
   place or places only by a region named beside it ("Damage to Church, Lukashivka, Chernihiv
   Oblast"), is read with the text scanner; a string with no place placed finer than a region
   gives its first reference point (as a position relative to it), else what its places fell
   back on, else its first area.

The first place is the answer (:attr:`Geocoding.place`); the other places follow in
:attr:`Geocoding.others`, in the order of the string, except that a place found only on a name
on a guess (a name a letter or two off, a Russian-style form, one word of the part, the town of
a site) comes after the places named as written, and after a reference point when no place is
named as written ("Strike near Yuzhnoukrainsk" is not the village Stroky).
:attr:`Geocoding.how` says which reading was used; each resolution's reason says how its place
was chosen.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from casebuilder.gazetteer.lexicon import gazetteer_lexicon
from casebuilder.gazetteer.model import Place, PlaceContext, Resolution
from casebuilder.gazetteer.normalise import normalise_toponym, romanise_ukrainian

if TYPE_CHECKING:
    from casebuilder.gazetteer.resolver import Gazetteer

_LEXICON = gazetteer_lexicon()  # the word classes named below: data/lexicon/queries.toml
_SEPARATORS = _LEXICON.pattern("place_string_separators")
_DISTRICT_OF = _LEXICON.pattern("district_of")
_OPENERS = _LEXICON.pattern("segment_openers")
_FRONT_WORDS = _LEXICON.words("front_words")
_NAME_WORDS = _LEXICON.words("name_words")
_RELATIVE = _LEXICON.pattern("relative_position")
_REGION_MARKERS = _LEXICON.pattern("region_marker")
_AREA_WORDS = _LEXICON.words("raion_words") | _LEXICON.words("hromada_words")
_END = " \t.;:!?,\"'()[]"
_FINE = ("settlement", "city_district", "feature")

Role = Literal["area", "reference", "place"]
How = Literal["parts", "running text", "empty"]


@dataclass(frozen=True, slots=True)
class Geocoding:
    """What a free-text place string names: ``resolutions`` holds one resolution per place
    (the answer first, the others in the order of the string); it is empty, or its first
    resolution's place is None, when nothing was found. ``how`` is ``"parts"`` (read as a
    list of names), ``"running text"`` (read with the text scanner) or ``"empty"``."""

    query: str
    resolutions: tuple[Resolution, ...] = field(default=())
    how: How = "empty"

    @property
    def main(self) -> Resolution:
        """The answer: the first place the string names."""
        if self.resolutions:
            return self.resolutions[0]
        return Resolution(self.query, None, "", (), "no place name in the query")

    @property
    def place(self) -> Place | None:
        return self.main.place

    @property
    def reason(self) -> str:
        return self.main.reason

    @property
    def others(self) -> tuple[Resolution, ...]:
        """The other places the string names, in its order (no repeats of the answer)."""
        return self.resolutions[1:]


@dataclass(frozen=True, slots=True)
class _Part:
    text: str  # as it goes to the resolver ("near Bakhmut", "Saltovsky district")
    role: Role
    anchor: str  # the name alone, as a locator of the other parts


def geocode(gazetteer: Gazetteer, text: str) -> Geocoding:
    """Every place the free-text place string ``text`` names (see the module doc)."""
    if not text.strip():
        return Geocoding(text)
    pieces = _pieces(text)
    if not pieces:
        return Geocoding(text)
    if any(_running_text(piece) and not gazetteer.knows(piece) for piece in pieces):
        return _as_running_text(gazetteer, text)
    parts = [_role(gazetteer, piece, number) for number, piece in enumerate(pieces)]
    found, guessed, failed = _place_parts(gazetteer, parts)
    if not found:
        found = _fallback(gazetteer, parts, guessed, failed)
    return Geocoding(text, _ordered([*found, *guessed, *failed]), "parts")


def _place_parts(gazetteer: Gazetteer, parts: list[_Part]
                 ) -> tuple[list[Resolution], list[Resolution], list[Resolution]]:
    """The parts that are places, resolved: (placed on a name as written or one of its forms,
    placed on a guess, placed only by a region or not at all)."""
    found: list[Resolution] = []  # placed on a name as written or one of its forms
    guessed: list[Resolution] = []  # placed on a name a letter or two off
    failed: list[Resolution] = []  # placed only by a region, or not at all
    for part in (p for p in parts if p.role == "place"):
        within = tuple(p.anchor for p in parts if p is not part)
        resolution = gazetteer.resolve(part.text, PlaceContext(within=within))
        fine = resolution.place is not None and resolution.place.feature_kind in _FINE
        if fine:
            (guessed if _guessed(gazetteer, resolution, part) else found).append(resolution)
            continue
        if gazetteer.knows(part.text):
            # a name the resolver chose to place by its region only ("Izyum, Kyiv Oblast":
            # the Izium it knows lies far outside): its judgement stands
            failed.append(resolution)
            continue
        # not a name the gazetteer knows ("Damage to Church", "Entrenching Russian
        # Positions"): the resolver fell back on a region named beside it, or found nothing;
        # the part may still hold a name ("Lyman Train Station Skyway")
        scanned = _as_running_text(gazetteer, part.text, within)
        placed = [r for r in scanned.resolutions if r.place is not None]
        found.extend(r for r in placed if r.place is not None and r.place.feature_kind in _FINE)
        failed.extend([resolution, *(r for r in placed if r not in found)])
    return found, guessed, failed


def _fallback(gazetteer: Gazetteer, parts: list[_Part], guessed: list[Resolution],
              failed: list[Resolution]) -> list[Resolution]:
    """When no part is a place of its own: the first reference point, else (with no guess and
    nothing placed by a region) the first area; empty when there is neither."""
    # no place of its own, or only a guess at a misspelt one ("near Klishchiivka, Bakhmut
    # front", "LPR", "Fighting near Vuhledar in the Donetsk region", "Strike near
    # Yuzhnoukrainsk"): the first reference point, else the guesses, else what the places
    # fell back on, else the first area
    first = next((p for p in parts if p.role == "reference"), None)
    if first is None and not guessed and not any(r.place is not None for r in failed):
        first = next((p for p in parts if p.role == "area"), None)
    if first is not None:
        others = tuple(p.anchor for p in parts if p is not first and p.role != "place")
        return [gazetteer.resolve(first.text, PlaceContext(within=others))]
    return []


def _guessed(gazetteer: Gazetteer, resolution: Resolution, part: _Part) -> bool:
    """Whether the place was found on something else than the part's name as written or
    romanised: a name a letter or two off, a Russian-style form, one word of the part
    ("School" of "Damaged Gymnasium/School"), the town of a site or street."""
    if not resolution.candidates or resolution.candidates[0].match in ("fuzzy", "form"):
        return True
    return not gazetteer.names_place(part.text)


def _pieces(text: str) -> list[str]:
    """The parts of a place string, stripped of openers and end punctuation; a name before a
    relative position is a part of its own ("Stepnohirsk near Orikhiv")."""
    text = _DISTRICT_OF.sub(lambda m: f"{m.group(1)}, ", romanise_ukrainian(text))
    pieces = []
    for raw in _SEPARATORS.split(text):
        relation = _RELATIVE.search(raw)
        split: tuple[str, ...] = (raw,)
        if relation and raw[: relation.start()].strip(_END) and raw[relation.end() :].strip():
            split = (raw[: relation.start()], raw[relation.start() :])
        for chunk in split:
            piece = _OPENERS.sub("", chunk.strip(_END)).strip(_END)
            if piece and any(ch.isalpha() for ch in piece):
                pieces.append(piece)
    return pieces


def _running_text(piece: str) -> bool:
    """Whether a part holds a word that no name holds: a lower-case word other than a place
    word, or a figure (the "3" of "Image 3", a date)."""
    if any(map(str.isdigit, piece)) and not _RELATIVE.search(piece):
        return True
    words = piece.split()
    if len(words) < 2 and not piece.islower():
        return False  # one capitalised word is a name, however it is spelt
    for word in words:
        letters = next((ch for ch in word if ch.isalpha()), "")
        if letters.islower() and normalise_toponym(word) not in _NAME_WORDS:
            return True
    return False


def _role(gazetteer: Gazetteer, piece: str, number: int) -> _Part:
    """What a part of a place string is (see the module doc, step 3)."""
    words = normalise_toponym(piece).split()
    if _RELATIVE.search(piece):
        anchor = _RELATIVE.sub(" ", piece).strip()
        return _Part(piece, "reference", anchor or piece)
    if words and words[-1] in _FRONT_WORDS:
        name = " ".join(piece.split()[:-1])
        return _Part(f"near {name}", "reference", name)
    if gazetteer.names_country(piece):
        return _Part(piece, "area", piece)
    area_word = any(word in _AREA_WORDS for word in words)
    if area_word and gazetteer.names_area(piece):
        return _Part(piece, "area", piece)
    regions = gazetteer.regions.match(piece, fuzzy=False)
    if regions and (_REGION_MARKERS.search(piece) or number > 0
                    or not gazetteer.knows(piece)):  # fmt: skip
        return _Part(piece, "area", piece)
    return _Part(piece, "place", piece)


def _as_running_text(gazetteer: Gazetteer, text: str, within: Sequence[str] = ()
                     ) -> Geocoding:
    """Every place the scanner finds in ``text`` that locates nothing, resolved as one
    document; places finer than a region first."""
    mentions = gazetteer.find_toponyms(text, loose=True)
    if not mentions:
        return Geocoding(text, (), "running text")
    context = PlaceContext(admin1=tuple(within)) if within else None
    resolutions = gazetteer.resolve_mentions(mentions, context)
    found = [
        resolution
        for mention, resolution in zip(mentions, resolutions, strict=True)
        if mention.locates is None and resolution.place is not None and not mention.dateline
    ]
    fine = [r for r in found if r.place is not None and r.place.feature_kind in _FINE]
    coarse = sorted((r for r in found if r not in fine),
                    key=lambda r: r.place.precision_rank if r.place else 9.0)  # fmt: skip
    return Geocoding(text, _ordered([*fine, *coarse]), "running text")


def _ordered(found: Sequence[Resolution]) -> tuple[Resolution, ...]:
    """The resolutions without repeats of a place, a resolution without a place kept only
    when no other has one."""
    placed = [r for r in found if r.place is not None]
    if not placed:
        return tuple(found[:1])
    seen: set[str] = set()
    kept: list[Resolution] = []
    for resolution in placed:
        assert resolution.place is not None
        if resolution.place.gazetteer_id not in seen:
            seen.add(resolution.place.gazetteer_id)
            kept.append(resolution)
    return tuple(kept)
