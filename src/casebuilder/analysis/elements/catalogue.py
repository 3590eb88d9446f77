"""The elements catalogue and the charges, read from data and checked on load.

Catalogue files are the ``*.toml`` files of this folder other than ``charges.toml`` and
``signals.toml``. Each has ``version`` (the catalogue format; 1), ``about``, the shared
contextual elements of its article (``[context.NAME]`` with ``[[context.NAME.element]]``) and
its crimes (``[[crime]]`` with ``id``, ``title``, ``context`` and ``[[crime.element]]``). An
element has ``number`` (as the ICC Elements of Crimes number it), ``kind`` (conduct,
consequence, circumstance, mental, context), ``statement`` (our short paraphrase) and its means
of proof: signals that speak ``for`` it and signals that speak ``against`` it. A crime's
contextual elements are numbered after its own, so element ids read as in the Elements of
Crimes: ``8(2)(b)(i)-1`` ... ``8(2)(b)(i)-5``.

``charges.toml`` groups crimes into named charges: ``counts`` is a list of counts joined
together (WITH), each a list of alternatives (OR).

Anything malformed is a :class:`CatalogueError` naming the file and the entry (the crime, the
element or the charge) and what is wrong; the digest of every file read goes into the custody
entry of each matrix shown, so a matrix can be traced to the catalogue that produced it.
"""

from __future__ import annotations

import hashlib
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from casebuilder.analysis.elements.signals import Signal, SignalError, parse_signal
from casebuilder.errors import ConfigurationError

DIRECTORY: Final = Path(__file__).parent
CHARGES_FILE: Final = "charges.toml"
NOT_CATALOGUE: Final = frozenset({CHARGES_FILE, "signals.toml"})
VERSIONS: Final = frozenset({1})
KINDS: Final = ("conduct", "consequence", "circumstance", "mental", "context")

FILE_KEYS: Final = frozenset({"version", "about", "context", "crime"})
CONTEXT_KEYS: Final = frozenset({"about", "element"})
CRIME_KEYS: Final = frozenset({"id", "title", "context", "element", "about"})
ELEMENT_KEYS: Final = frozenset({"number", "kind", "statement", "for", "against"})
CONTEXT_ELEMENT_KEYS: Final = frozenset({"key", "kind", "statement", "for", "against"})
CHARGE_FILE_KEYS: Final = frozenset({"version", "charge"})
CHARGE_KEYS: Final = frozenset({"name", "about", "counts"})


class CatalogueError(ConfigurationError):
    """A catalogue or charges file is malformed: the message names the file and the entry."""


@dataclass(frozen=True)
class Element:
    """One numbered element of a crime."""

    id: str  # "8(2)(b)(i)-1"
    crime: str  # "8(2)(b)(i)"
    number: int
    kind: str
    statement: str
    supports: tuple[Signal, ...]  # signals that speak for it
    contradicts: tuple[Signal, ...]  # signals that speak against it
    common: str | None = None  # the key of a shared contextual element ("conflict-nexus")

    @property
    def signals(self) -> tuple[Signal, ...]:
        return (*self.supports, *self.contradicts)

    @property
    def inferred(self) -> bool:
        """Mental and context elements: never shown from one incident's claims alone."""
        return self.kind in {"mental", "context"}


@dataclass(frozen=True)
class Crime:
    id: str
    title: str
    article: str  # "7" or "8"
    elements: tuple[Element, ...]
    source: str  # the file it is defined in


@dataclass(frozen=True)
class Charge:
    """Named counts joined together (WITH), each satisfied by any one alternative (OR)."""

    name: str
    about: str
    counts: tuple[tuple[str, ...], ...]

    @property
    def crimes(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(c for count in self.counts for c in count))

    def describe(self) -> str:
        return " WITH ".join("(" + " OR ".join(count) + ")" if len(count) > 1 else count[0]
                             for count in self.counts)


@dataclass(frozen=True)
class Catalogue:
    crimes: Mapping[str, Crime]
    charges: Mapping[str, Charge]
    digest: str  # sha256 over every file read, in name order
    files: tuple[str, ...]

    def crime(self, crime_id: str) -> Crime:
        found = self.crimes.get(crime_id)
        if found is None:
            raise CatalogueError(f"no crime {crime_id!r} in the elements catalogue (known: "
                                 f"{', '.join(self.crimes)})")
        return found

    def element(self, element_id: str) -> Element:
        for crime in self.crimes.values():
            for element in crime.elements:
                if element.id == element_id:
                    return element
        raise CatalogueError(f"no element {element_id!r} in the elements catalogue (elements "
                             "are named like 8(2)(b)(i)-1; see 'casebuilder elements')")

    def charge(self, name: str) -> Charge:
        found = self.charges.get(name)
        if found is None:
            raise CatalogueError(f"no charge {name!r} in {CHARGES_FILE} (known: "
                                 f"{', '.join(self.charges)})")
        return found


def _read(path: Path) -> tuple[dict[str, Any], bytes]:
    try:
        raw = path.read_bytes()
        return tomllib.loads(raw.decode("utf-8")), raw
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise CatalogueError(f"{path}: {exc}") from exc


def _keys(where: str, entry: Any, allowed: frozenset[str]) -> dict[str, Any]:
    if not isinstance(entry, dict):
        raise CatalogueError(f"{where}: is not a table")
    unknown = sorted(set(entry) - allowed)
    if unknown:
        raise CatalogueError(f"{where}: unknown key {unknown[0]!r} (known keys: "
                             f"{', '.join(sorted(allowed))})")
    return entry


def _text(where: str, entry: Mapping[str, Any], key: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not value.strip():
        raise CatalogueError(f"{where}: needs {key} = \"...\" (some text)")
    return value.strip()


def _signals(where: str, entry: Mapping[str, Any], key: str) -> tuple[Signal, ...]:
    value = entry.get(key)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise CatalogueError(f"{where}: needs {key} = [signals] (a list, empty if none)")
    if len(set(value)) != len(value):
        raise CatalogueError(f"{where}: {key} names a signal twice")
    try:
        return tuple(parse_signal(v) for v in value)
    except SignalError as exc:
        raise CatalogueError(f"{where}: {key}: {exc}") from exc


def _kind(where: str, entry: Mapping[str, Any]) -> str:
    kind = entry.get("kind")
    if kind not in KINDS:
        raise CatalogueError(f"{where}: kind must be one of {', '.join(KINDS)} (not {kind!r})")
    return str(kind)


def _version(path: Path, data: Mapping[str, Any]) -> None:
    if data.get("version") not in VERSIONS:
        raise CatalogueError(f"{path}: version must be one of {sorted(VERSIONS)} (the catalogue "
                             f"format this casebuilder reads), not {data.get('version')!r}")


def _contexts(path: Path, data: Mapping[str, Any]) -> dict[str, list[dict[str, Any]]]:
    raw = data.get("context", {})
    if not isinstance(raw, dict):
        raise CatalogueError(f"{path}: [context] must hold named tables")
    out: dict[str, list[dict[str, Any]]] = {}
    for name, table in raw.items():
        where = f"{path.name}: [context.{name}]"
        _keys(where, table, CONTEXT_KEYS)
        elements = table.get("element", [])
        if not isinstance(elements, list) or not elements:
            raise CatalogueError(f"{where}: needs [[context.{name}.element]] entries")
        for element in elements:
            key = element.get("key") if isinstance(element, dict) else None
            _keys(f"{where} element {key!r}", element, CONTEXT_ELEMENT_KEYS)
        out[name] = elements
    return out


def _crime(path: Path, entry: Any, shared: Mapping[str, list[dict[str, Any]]]) -> Crime:
    crime_id = entry.get("id") if isinstance(entry, dict) else None
    if not isinstance(crime_id, str) or not crime_id.strip():
        raise CatalogueError(f"{path.name}: every [[crime]] needs id = \"8(2)(b)(i)\"")
    where = f"{path.name}: crime {crime_id}"
    _keys(where, entry, CRIME_KEYS)
    title = _text(where, entry, "title")
    elements: list[Element] = []
    for raw in entry.get("element", []):
        number = raw.get("number") if isinstance(raw, dict) else None
        at = f"{where} element {number}"
        _keys(at, raw, ELEMENT_KEYS)
        if not isinstance(number, int) or isinstance(number, bool) or number < 1:
            raise CatalogueError(f"{at}: number must be a whole number from 1")
        if number != len(elements) + 1:
            raise CatalogueError(f"{at}: elements are numbered 1, 2, 3 ... in order (expected "
                                 f"{len(elements) + 1})")
        elements.append(Element(f"{crime_id}-{number}", crime_id, number, _kind(at, raw),
                                _text(at, raw, "statement"), _signals(at, raw, "for"),
                                _signals(at, raw, "against")))
    if not elements:
        raise CatalogueError(f"{where}: needs its [[crime.element]] entries")
    context = entry.get("context")
    if context is not None:
        found = shared.get(context)
        if found is None:
            raise CatalogueError(f"{where}: context {context!r} is defined in no catalogue "
                                 "file ([context.NAME])")
        for raw in found:
            number = len(elements) + 1
            at = f"{where} context element {raw.get('key')!r}"
            elements.append(Element(f"{crime_id}-{number}", crime_id, number, _kind(at, raw),
                                    _text(at, raw, "statement"), _signals(at, raw, "for"),
                                    _signals(at, raw, "against"),
                                    common=_text(at, raw, "key")))
    article = crime_id.split("(", 1)[0]
    return Crime(crime_id, title, article, tuple(elements), path.name)


def _charges(path: Path, data: Mapping[str, Any], crimes: Mapping[str, Crime]
             ) -> dict[str, Charge]:
    _keys(path.name, data, CHARGE_FILE_KEYS)
    _version(path, data)
    out: dict[str, Charge] = {}
    for entry in data.get("charge", []):
        name = entry.get("name") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not name.strip():
            raise CatalogueError(f"{path.name}: every [[charge]] needs name = \"...\"")
        where = f"{path.name}: charge {name!r}"
        _keys(where, entry, CHARGE_KEYS)
        if name in out:
            raise CatalogueError(f"{where}: is defined twice")
        counts = entry.get("counts")
        if not isinstance(counts, list) or not counts or not all(
                isinstance(c, list) and c and all(isinstance(x, str) for x in c)
                for c in counts):
            raise CatalogueError(f"{where}: counts = [[\"crime\", \"alternative\"], "
                                 "[\"crime joined WITH\"]] (a list of non-empty lists)")
        for count in counts:
            for crime_id in count:
                if crime_id not in crimes:
                    raise CatalogueError(f"{where}: names crime {crime_id!r}, which the "
                                         "catalogue does not hold")
        out[name] = Charge(name, _text(where, entry, "about"),
                           tuple(tuple(c) for c in counts))
    return out


def load_catalogue(directory: Path = DIRECTORY) -> Catalogue:
    """Read and check every catalogue file and the charges of ``directory``."""
    paths = sorted(p for p in directory.glob("*.toml") if p.name not in NOT_CATALOGUE)
    if not paths:
        raise CatalogueError(f"{directory}: no catalogue files (*.toml)")
    digest = hashlib.sha256()
    parsed: list[tuple[Path, dict[str, Any]]] = []
    for path in paths:
        data, raw = _read(path)
        digest.update(path.name.encode() + b"\0" + raw + b"\0")
        _keys(path.name, data, FILE_KEYS)
        _version(path, data)
        parsed.append((path, data))
    shared: dict[str, list[dict[str, Any]]] = {}
    for path, data in parsed:
        for name, elements in _contexts(path, data).items():
            if name in shared:
                raise CatalogueError(f"{path.name}: [context.{name}] is defined twice")
            shared[name] = elements
    crimes: dict[str, Crime] = {}
    for path, data in parsed:
        for entry in data.get("crime", []):
            crime = _crime(path, entry, shared)
            if crime.id in crimes:
                raise CatalogueError(f"{path.name}: crime {crime.id} is defined twice (also in "
                                     f"{crimes[crime.id].source})")
            crimes[crime.id] = crime
    charges_path = directory / CHARGES_FILE
    charges: dict[str, Charge] = {}
    if charges_path.exists():
        data, raw = _read(charges_path)
        digest.update(charges_path.name.encode() + b"\0" + raw + b"\0")
        charges = _charges(charges_path, data, crimes)
    return Catalogue(crimes, charges, digest.hexdigest(),
                     tuple(p.name for p in paths) + ((CHARGES_FILE,) if charges else ()))


def crimes_named(catalogue: Catalogue, names: Sequence[str]) -> list[Crime]:
    """The crimes of the charges or crime ids named, each once, in the order named."""
    out: dict[str, Crime] = {}
    for name in names:
        if name in catalogue.charges:
            for crime_id in catalogue.charges[name].crimes:
                out.setdefault(crime_id, catalogue.crime(crime_id))
        else:
            out.setdefault(name, catalogue.crime(name))
    return list(out.values())
