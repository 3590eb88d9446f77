"""Every extracted value points back to the exact words it came from."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from casebuilder.extraction.mentions import SourceText
from casebuilder.extraction.run import source_text
from casebuilder.preservation.case import open_case
from casebuilder.store import schema


def test_offsets_and_quotes_of_every_stored_claim_match_the_stored_text(dev_case_home):
    case = open_case(dev_case_home, environ={})
    try:
        with case.session() as s:
            claims = list(s.execute(select(schema.Claim)).scalars())
            texts, titles = {}, {}
            for item in s.execute(select(schema.Item)).scalars():
                if item.text_item_id:
                    text_item = s.get(schema.Item, item.text_item_id)
                    texts[item.id] = case.objects.path_for(text_item.sha256).read_text()
                    found = source_text(case, item)
                    titles[item.id] = found.title if found else ""
        assert claims
        for c in claims:
            # a place only the headline names is cited to the collection's title
            text = titles[c.item_id] if c.value.get("field") == "title" else texts[c.item_id]
            assert text[c.sentence_start:c.sentence_end] == c.quote
            assert c.sentence_start <= c.char_start < c.char_end <= c.sentence_end
            words = c.value.get("words") or c.value.get("name") or c.value.get("expression") \
                or c.value.get("text") or c.value.get("trigger")
            if isinstance(words, str) and c.kind not in {"category"}:
                assert words.lower().split()[0] in text[c.char_start:c.char_end].lower(), \
                    (c.kind, words, text[c.char_start:c.char_end])
            assert c.attributed_to and c.evidentiality in {
                "observed", "stated", "alleged", "denied", "unverified"}
    finally:
        case.close()


def test_extraction_is_logged_and_idempotent(dev_case_copy, extraction_tools):
    from casebuilder.extraction.run import extract_items

    case = open_case(dev_case_copy, environ={})
    try:
        before = case.paths.log.read_bytes()
        report = extract_items(case, extraction_tools)
        assert {o.status for o in report.outcomes} == {"unchanged"}
        assert case.paths.log.read_bytes() == before
        entries = [json.loads(line) for line in before.splitlines()]
        extracts = [e for e in entries if e["action"] == "extract"]
        assert extracts and all(e["details"]["results_sha256"] for e in extracts)
        assert {r["role"] for e in extracts for r in e["items"]} == {"source", "text"}
    finally:
        case.close()


WORDS = ["Kharkiv", "Kyiv", "Bucha", "Mariupol", "Odessa", "Hroza", "missile", "missiles",
         "killed", "killing", "at least 10", "dozens", "said", "told", "denied", "Russia's",
         "Ukrainian forces", "defence ministry", "on Friday", "the day before", "shelling",
         "station", "hospital", "queue", "bread", "according to", "the governor", ",", ".",
         "\n\n", "”", "“", "-", "near", "of", "in", "could not be independently verified",
         "Pavlo Kyrylenko", "he", "besieged", "city", "relentless", "region", "Oblast"]


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=300),
    st.lists(st.sampled_from(WORDS), max_size=80).map(" ".join)))
def test_extractor_never_crashes_and_offsets_stay_in_the_text(extraction_tools, text):
    from datetime import date

    for mention in extraction_tools.extractor.extract(SourceText(1, text, "", "x",
                                                                  date(2022, 4, 8))):
        for c in mention.claims:
            assert 0 <= c.provenance.char_start <= c.provenance.char_end <= len(text)
            assert text[c.provenance.sentence_start:c.provenance.sentence_end] == \
                c.provenance.quote
