"""What the scorer's figures are made of: each predicted incident with the gold incident it
matches, or why it counts against precision, and each gold incident's toll and sources.

    python benchmarks/explain_score.py GOLD.json PREDICTED.geojson

Uses the shared scorer's own matching (../shared/tools/score_incidents.py), so the verdicts are
the ones behind its figures. For development: it prints document names and places, never text.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

SCORER = Path(__file__).resolve().parent.parent.parent / "shared" / "tools" / "score_incidents.py"


def scorer():  # the shared tool, loaded from its file
    spec = importlib.util.spec_from_file_location("score_incidents", SCORER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: list[str]) -> int:
    s = scorer()
    gold = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
    preds = s.load_predictions(argv[2])
    golds = gold["incidents"]
    names = [n.lower() for n in gold.get("neutral_places", []) if isinstance(n, str)]
    for pi, p in enumerate(preds):
        if p is None:
            print(f"#{pi} (no point)")
            continue
        props = p["props"]
        hits = [g["key"] for g in golds if s.matches(p, g)]
        place = str(props.get("place") or "")
        verdict = ", ".join(hits) if hits else (
            "neutral place" if place.lower() in names else "FALSE")
        docs = sorted({str(src.get("document")) for src in props.get("sources") or []})
        print(f"#{pi} {verdict:<40} {place} ({props.get('admin1')}) {p['start']}..{p['end']} "
              f"{sorted(p['cats'])} killed {props.get('killed_max')}  docs {docs}")
    print()
    for g in golds:
        print(f"gold {g['key']}: killed {g.get('killed_max')} window {g['date_window']} "
              f"sources {g.get('sources')}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
