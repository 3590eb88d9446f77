"""The one reading of a date filter (``within_dates``): any overlap admits an incident, an
undated one is admitted only when no date is asked for; ``patterns``/reports' Selection and
``incidents`` agree."""

from __future__ import annotations

from datetime import date

import pytest

from casebuilder.analysis.patterns.records import IncidentRecord, Selection
from casebuilder.model.partial_date import within_dates
from casebuilder.resolution.stored import line_within

D = date.fromisoformat
CASES = [
    # first, last, since, until, admitted
    ("2022-03-05", "2022-03-05", None, None, True),
    ("2022-03-05", "2022-03-05", "2022-03-05", "2022-03-05", True),
    ("2022-03-05", "2022-03-05", "2022-03-06", None, False),
    ("2022-03-05", "2022-03-05", None, "2022-03-04", False),
    ("2022-02-24", "2022-04-03", None, "2022-02-28", True),  # a siege begun before
    ("2022-02-24", "2022-04-03", "2022-04-03", None, True),  # and ended on the day
    ("2022-02-24", "2022-04-03", "2022-04-04", None, False),
    (None, None, None, None, True),  # undated: only without dates
    (None, None, "2022-01-01", None, False),
]


@pytest.mark.parametrize(("first", "last", "since", "until", "admitted"), CASES)
def test_examples(first, last, since, until, admitted):
    f, la = (D(first), D(last)) if first else (None, None)
    s, u = (D(since) if since else None), (D(until) if until else None)
    assert within_dates(f, la, s, u) is admitted
    record = IncidentRecord(id="inc-x", first_day=f, last_day=la,
                            day=f if f == la else None)
    assert Selection(since=s, until=u).admits(record) is admitted
    listed = {"date_start": first, "date_end": last}
    assert line_within(listed, s, u) is admitted
