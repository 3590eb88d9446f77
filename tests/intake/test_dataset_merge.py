"""An ACLED file of our own with rows for the attacks the development reports tell (their real
dates and places, our words) merges with the reports BY THE SAME RULES: one incident per
attack, the dataset row among its origins; the dataset's context rows are no incidents."""

from __future__ import annotations

from pathlib import Path

from casebuilder.extraction.datasets.importing import import_dataset
from casebuilder.gazetteer import distance_km
from casebuilder.preservation.case import open_case
from casebuilder.preservation.verify import verify_case
from casebuilder.resolution.incidents import build_incidents

ACLED = Path(__file__).resolve().parent.parent / "data" / "datasets" / "acled-dev-attacks.csv"
ATTACKS = {  # gold key: (lat, lon) of the attack (../shared/corpus/dev/gold.json)
    "mariupol-theatre": (47.1, 37.54),
    "chernihiv-bread-line": (51.5, 31.29),
    "merefa-school": (49.82, 36.05),
    "kramatorsk-station": (48.72, 37.56),
    "barvinkove-overpass": (48.91, 37.02),
}


def test_dataset_rows_join_the_reports_of_the_same_attacks(dev_case_copy):
    case = open_case(dev_case_copy, create=False)
    try:
        report = import_dataset(case, "acled", ACLED)
        assert report.counts == {"incident": 5, "context": 2, "rejected": 0}
        incidents = build_incidents(case)
        assert verify_case(case).ok
    finally:
        case.close()
    with_rows = [i for i in incidents
                 if any(m.document.name.startswith(ACLED.name) for m in i.mentions)]
    assert len(with_rows) == 5, [(i.id, [m.document.name for m in i.mentions])
                                 for i in with_rows]
    for key, point in ATTACKS.items():
        holding = [i for i in with_rows if any(
            m.coordinates and distance_km(m.coordinates, point) < 15
            and m.document.name.startswith(ACLED.name) for m in i.mentions)]
        assert len(holding) == 1, key
        names = {m.document.name for m in holding[0].mentions}
        reports = {n for n in names if not n.startswith(ACLED.name)}
        assert reports, f"{key}: the dataset row stands alone ({names})"
        rows = [n for n in names if n.startswith(ACLED.name)]
        assert len(rows) == 1, key
