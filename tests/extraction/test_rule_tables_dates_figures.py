"""The date-role and figure-cue tables: every rule run on its own examples through the real
resolver and figure finder, each rule switched off in turn (a rule whose examples still get
its outcome without it is redundant or shadowed), the patterns of the date and figure
lexicons on their examples, one list of verbs of saying for attribution and dates, and the
rule names that dropped or re-roled values carry."""

from __future__ import annotations

import re
import shutil
from datetime import date
from pathlib import Path

import pytest

from casebuilder.extraction.date_roles import DROPPED, load_date_roles
from casebuilder.extraction.dates import DateResolver, DateTrace
from casebuilder.extraction.figure_cues import NOT_A_FIGURE, load_figure_cues
from casebuilder.extraction.figures import FigureTrace, find_figures
from casebuilder.extraction.rules import Decision, RuleError, RuleTable
from casebuilder.extraction.vocabulary import load_vocabulary

VOCABULARY = load_vocabulary()
LEXICON = VOCABULARY.lexicon
DATE_ROLES = load_date_roles(VOCABULARY.directory, LEXICON)
FIGURE_CUES = load_figure_cues(VOCABULARY.directory, LEXICON)
RESOLVER = DateResolver.of(VOCABULARY)
PUBLISHED = date(2022, 3, 16)  # a Wednesday, as the date table's header says
MARKED = re.compile(r"\[([^\]]+)\]")
LEXICON_FILES = ("dates.toml", "figures.toml")


def unmark(example: str) -> tuple[str, int, int]:
    match = MARKED.search(example)
    assert match, f"example without a [marked] value: {example}"
    text = example[: match.start()] + match.group(1) + example[match.end():]
    return text, match.start(), match.start() + len(match.group(1))


def _overlapping(trace: list[DateTrace] | list[FigureTrace], start: int, end: int
                 ) -> Decision | None:
    found = [t.decision for t in trace
             if (t.start <= start and end <= t.end) or (start <= t.start and t.end <= end)]
    return found[0] if found else None


def date_decision(table: RuleTable, example: str) -> Decision | None:
    """The decision of ``table`` on the [marked] date of ``example``, read by the resolver
    the extractor uses (with ``table`` in place of its own)."""
    text, start, end = unmark(example)
    trace: list[DateTrace] = []
    original = RESOLVER.roles
    RESOLVER.roles = table
    try:
        RESOLVER.find(text, PUBLISHED, trace=trace)
    finally:
        RESOLVER.roles = original
    return _overlapping(trace, start, end)


def figure_decision(table: RuleTable, example: str) -> Decision | None:
    text, start, end = unmark(example)
    trace: list[FigureTrace] = []
    find_figures(text, LEXICON, cues=table, trace=trace)
    return _overlapping(trace, start, end)


TABLES = {"date_roles": (DATE_ROLES, date_decision), "figure_cues": (FIGURE_CUES,
                                                                     figure_decision)}


def cases() -> list[tuple[str, str, str, bool]]:
    out = []
    for name, (table, _) in TABLES.items():
        out += [(name, rule.name, text, True) for rule in table.rules for text in rule.examples]
        out += [(name, rule.name, text, False) for rule in table.rules
                for text in rule.counterexamples]
    return out


@pytest.mark.parametrize(("table_name", "rule_name", "example", "positive"), cases(),
                         ids=lambda v: v if isinstance(v, str) and len(v) < 40 else None)
def test_rule_examples(table_name, rule_name, example, positive):
    table, decide = TABLES[table_name]
    rule = table.rule(rule_name)
    decision = decide(table, example)
    assert decision is not None, f"nothing for the table to decide in {example!r}"
    if positive:
        assert decision == Decision(rule.outcome, rule.name), example
    else:
        assert decision.rule != rule.name, f"{rule.name} fired on its counterexample {example!r}"


@pytest.mark.parametrize(("table_name", "rule_name"),
                         [(name, rule.name) for name, (table, _) in TABLES.items()
                          for rule in table.rules])
def test_every_rule_is_needed(table_name, rule_name):
    table, decide = TABLES[table_name]
    rule = table.rule(rule_name)
    without = table.without(rule_name)
    still = [text for text in rule.examples
             if (d := decide(without, text)) is not None and d.outcome == rule.outcome]
    assert len(still) < len(rule.examples), (
        f"{rule_name}: its examples still get {rule.outcome!r} without it ({still[0]!r}): the "
        "rule is redundant or shadowed, or its examples do not show what it is for")


def lexicon_patterns() -> list[tuple[str, str, bool]]:
    out = []
    for word_class in LEXICON.classes.values():
        if word_class.kind != "pattern" or word_class.source.split(":")[0] not in LEXICON_FILES:
            continue
        out += [(word_class.name, text, True) for text in word_class.examples]
        out += [(word_class.name, text, False) for text in word_class.counterexamples]
    return out


@pytest.mark.parametrize(("name", "text", "positive"), lexicon_patterns())
def test_lexicon_patterns_on_their_examples(name, text, positive):
    found = LEXICON.pattern(name).search(text)
    assert (found is not None) is positive, f"[{name}] on {text!r}"


def test_the_date_and_figure_lexicons_are_read():
    names = {c.name for c in LEXICON.classes.values()
             if c.source.split(":")[0] in LEXICON_FILES}
    assert {"month_numbers", "report_setting_words", "population_nouns",
            "casualty_predicate"} <= names
    assert len(lexicon_patterns()) > 60


def test_tables_refuse_an_unknown_predicate(tmp_path):
    from casebuilder.extraction import date_roles, figure_cues

    for module, name in ((date_roles, "date_roles.toml"), (figure_cues, "figure_cues.toml")):
        good = (VOCABULARY.directory / "rules" / name).read_text()
        broken = re.sub(r"when = \{ (\w+)", r"when = { \1x", good, count=1)
        (tmp_path / "rules").mkdir(exist_ok=True)
        (tmp_path / "rules" / name).write_text(broken)
        loader = getattr(module, "load_" + name.removesuffix(".toml"))
        with pytest.raises(RuleError, match="unknown predicate"):
            loader(tmp_path, LEXICON)


# -- one list of verbs of saying ----------------------------------------------------------------


def _vocabulary_with_verb(tmp_path: Path, verb: str):
    folder = tmp_path / "vocab"
    shutil.copytree(VOCABULARY.directory, folder)
    attribution = folder / "attribution.toml"
    text = attribution.read_text()
    assert '"denounced"' in text
    attribution.write_text(text.replace('"denounced"', f'"denounced", "{verb}"', 1))
    return load_vocabulary(folder)


def test_a_verb_of_saying_added_to_attribution_dates_statements(tmp_path):
    sentence = "The ministry proclaimed on Wednesday that ten people had died."
    (before,) = DateResolver.of(VOCABULARY).find(sentence, PUBLISHED)
    assert (before.role, before.role_rule) == ("event", "default")
    vocabulary = _vocabulary_with_verb(tmp_path, "proclaimed")
    assert vocabulary.evidentiality_verbs["proclaimed"] == "stated"
    (after,) = DateResolver.of(vocabulary).find(sentence, PUBLISHED)
    assert (after.role, after.role_rule) == ("report", "said-on-the-day")


def test_the_dates_use_the_verbs_of_attribution_and_no_list_of_their_own():
    saying = {verb for verb, kind in VOCABULARY.evidentiality_verbs.items()
              if kind != "observed"}
    assert saying == RESOLVER.reporting_verbs
    assert "saw" not in RESOLVER.reporting_verbs  # "journalists saw on Monday": the sight


# -- what dropped or re-roled values carry ----------------------------------------------------


def test_a_dropped_date_leaves_its_rule_in_the_trace():
    trace: list[DateTrace] = []
    found = RESOLVER.find("An editorial in the Sunday Times condemned it.", PUBLISHED,
                          base=10, trace=trace)
    assert found == []
    assert [(t.start, t.expression, t.decision) for t in trace] == [
        (30, "Sunday", Decision(DROPPED, "weekday-before-a-name"))]


def test_a_date_re_roled_as_a_report_names_its_rule():
    (mention,) = RESOLVER.find("KYIV (March 16) — Shelling killed ten.", PUBLISHED)
    assert (mention.role, mention.role_rule) == ("report", "dateline-in-brackets")


def test_figures_name_their_cue_and_what_made_them_totals():
    figures = find_figures("The strike killed 5 people, bringing the number killed since "
                           "the start of the war to 120.", LEXICON)
    assert [(f.low, f.cue_rule, f.cumulative, f.flag_rule) for f in figures] == [
        (5, "verb-before", False, ""), (120, "toll", True, "cumulative-cue")]
    joined = find_figures("The monitors counted 9,177 civilian deaths and 16,384 injuries "
                          "since February 2022.", LEXICON)
    assert [(f.low, f.cumulative, f.flag_rule) for f in joined] == [
        (9177, True, "joined-to-a-total"), (16384, True, "cumulative-cue")]
    (earlier,) = find_figures("Initial reports had put the number of dead at about 30.",
                              LEXICON)
    assert (earlier.rule, earlier.flag_rule) == ("reported-earlier", "earlier-report-cue")


def test_a_number_left_aside_leaves_its_rule_in_the_trace():
    trace: list[FigureTrace] = []
    assert find_figures("Russia launched more than 20 strikes on the city.", LEXICON,
                        trace=trace) == []
    assert [(t.quantity, t.decision) for t in trace] == [
        ("more than 20", Decision(NOT_A_FIGURE, "default"))]


def test_a_lone_servicewoman_is_counted():
    """"a" counts one before any person noun of the lexicon: once, "a servicewoman" counted
    no one because the noun was missing from population_nouns."""
    (figure,) = find_figures("The shelling killed a servicewoman.", LEXICON)
    assert (figure.low, figure.population, figure.cue_rule) == (1, "military", "verb-before")
