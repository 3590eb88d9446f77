"""A denial that names the other side as the one who acted is a competing attribution: the
agent of a passive verb after "by" and a determiner ("fired by the Ukrainian army") as much as
right after "by" ("fired by Ukrainian forces"). Our own sentences."""

from __future__ import annotations

from datetime import date

import pytest

from casebuilder.extraction.mentions import SourceText
from casebuilder.model.claim_values import PerpetratorValue

STRIKE = "A missile hit the bus depot in Orikhiv on Monday, killing four people, officials said. "


def _perpetrators(tools, text):  # type: ignore[no-untyped-def]
    mentions = tools.extractor.extract(SourceText(1, text, "", "Desk", date(2023, 5, 8)))
    return [(c.value.party, c.value.competing, c.rule) for m in mentions for c in m.claims
            if isinstance(c.value, PerpetratorValue)]


@pytest.mark.parametrize("denial", [
    "Russia's defence ministry denied any involvement and said such missiles were fired only "
    "by the Ukrainian army.",
    "Russia's defence ministry denied any involvement and said such missiles were fired only "
    "by Ukrainian forces.",
])
def test_a_denial_naming_the_other_side_is_a_counter_accusation(extraction_tools, denial):  # type: ignore[no-untyped-def]
    found = _perpetrators(extraction_tools, STRIKE + denial)
    assert ("ukraine", True, "counter-accusation") in found


def test_the_other_side_merely_named_is_no_counter_accusation(extraction_tools):  # type: ignore[no-untyped-def]
    found = _perpetrators(extraction_tools, STRIKE + "Russia's defence ministry denied any "
                          "involvement and said the Ukrainian army had withdrawn from the town.")
    assert not [f for f in found if f[0] == "ukraine"]
