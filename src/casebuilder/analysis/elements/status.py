"""The status of an element in an incident's matrix, decided by a rule table.

``rules/status.toml`` is an ordered rule table read by the extraction's rule machinery
(:mod:`casebuilder.extraction.rules`): each rule has a name, the status it gives, ``when`` and
``unless`` conditions built from the predicates below, a sentence on why, and examples and
counterexamples written by us; the first rule that fires decides, and the table's default
holds when none does. The status shown with each element names the rule that set it.

The statuses (:data:`STATUSES`): ``supported`` (claims speak for the element and none
against), ``contested`` (claims or sources speak against it), ``gap`` (nothing in the case
speaks for it yet), ``needs_analyst`` (what the case holds cannot settle it: a mental or
context element, a pattern not yet analysed, support only from sources that cannot be
judged, or an element no signal can show).

An example or counterexample is a situation written as ``key=value`` words, for instance
``"kind=mental for=1 pattern=awaited"``; :func:`situation_from_example` reads it. Keys:
``kind`` (the element's kind), ``for`` and ``against`` (how many claims speak for and against
it), ``credible`` (``yes``/``no``: whether a supporting claim is graded credibility 1-3;
default yes), ``parties`` (how many parties the supporting claims name as having acted;
default 1), ``means`` (``yes``/``no``: whether the element names any signal; default yes),
``pattern`` (``absent``: it names no pattern signal, the default; ``awaited``: it does and no
pattern run exists; ``not_found``: a run exists and no pattern signal holds; ``found``: one
holds), ``analyst`` (the status of an analyst's finding in force, if any).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Final

from casebuilder.extraction.rules import Predicate, RuleError, RuleTable, flag, load_rule_table
from casebuilder.model.lexicon import Lexicon

STATUSES: Final = ("supported", "contested", "gap", "needs_analyst")
STANDARDS: Final = ("reasonable_grounds", "substantial_grounds", "beyond_reasonable_doubt")
PATTERN_STATES: Final = ("absent", "awaited", "not_found", "found")
RULES_FILE: Final = Path(__file__).parent / "rules" / "status.toml"


@dataclass(frozen=True)
class Situation:
    """What the status rules look at for one element of one incident."""

    kind: str
    supporting: int
    contrary: int
    credible: bool  # a supporting claim is graded credibility 1-3
    parties: int  # parties the supporting perpetrator claims name
    means: bool  # the element names at least one signal
    pattern: str  # one of PATTERN_STATES
    analyst: str | None  # the status of the analyst's finding in force


PREDICATES: Final[dict[str, Predicate[Situation]]] = {p.name: p for p in (
    Predicate("kind", "the element's kind is one of the words (conduct, consequence, "
              "circumstance, mental, context)", "words", lambda s, words: s.kind in words),
    Predicate("analyst", "an analyst's finding in force gives one of these statuses",
              "words", lambda s, words: s.analyst in words),
    Predicate("has_support", "at least one claim speaks for the element", "bool",
              flag(lambda s: s.supporting)),
    Predicate("has_contrary", "at least one claim speaks against the element", "bool",
              flag(lambda s: s.contrary)),
    Predicate("support_credible", "a supporting claim is graded credibility 1 to 3 "
              "(confirmed, probably or possibly true)", "bool", flag(lambda s: s.credible)),
    Predicate("parties_at_least", "the supporting claims name at least this many parties as "
              "having acted", "int", lambda s, n: s.parties >= n),
    Predicate("has_means", "the element names at least one signal casebuilder can find",
              "bool", flag(lambda s: s.means)),
    Predicate("pattern", "the state of the element's pattern signals: absent, awaited (no "
              "pattern run yet), not_found, found", "words", lambda s, words: s.pattern in words),
)}


class StatusExampleError(RuleError):
    """A status rule's example is not a situation the notation can read."""


def situation_from_example(text: str) -> Situation:
    """The situation an example of the status table describes (see the module docstring)."""
    values: dict[str, str] = {}
    for word in text.split():
        key, sep, value = word.partition("=")
        if not sep or key not in {"kind", "for", "against", "credible", "parties", "means",
                                  "pattern", "analyst"}:
            raise StatusExampleError(f"status example {text!r}: cannot read {word!r} "
                                     "(write key=value words)")
        values[key] = value

    def count(key: str, default: int) -> int:
        try:
            return int(values.get(key, default))
        except ValueError as exc:
            raise StatusExampleError(f"status example {text!r}: {key} takes a number") from exc

    pattern = values.get("pattern", "absent")
    if pattern not in PATTERN_STATES:
        raise StatusExampleError(f"status example {text!r}: pattern is one of "
                                 f"{', '.join(PATTERN_STATES)}")
    return Situation(kind=values.get("kind", "conduct"), supporting=count("for", 0),
                     contrary=count("against", 0), credible=values.get("credible", "yes") == "yes",
                     parties=count("parties", 1), means=values.get("means", "yes") == "yes",
                     pattern=pattern, analyst=values.get("analyst"))


def load_status_rules(path: Path = RULES_FILE) -> RuleTable[Situation]:
    """The status rule table, checked against the predicates and statuses; every example and
    counterexample must be a situation the notation reads."""
    table = load_rule_table(path, PREDICATES, STATUSES, Lexicon({}, ""))
    for rule in table.rules:
        for example in (*rule.examples, *rule.counterexamples):
            try:
                situation_from_example(example)
            except StatusExampleError as exc:
                raise StatusExampleError(f"{path}:{rule.line}: rule {rule.name!r}: {exc}") \
                    from exc
    return table


@cache
def status_rules() -> RuleTable[Situation]:
    return load_status_rules()


def describe_rule(table: RuleTable[Any], name: str) -> str:
    """The sentence on why a rule decides as it does ("" for the default)."""
    if name == "default":
        return table.about
    return table.rule(name).about
