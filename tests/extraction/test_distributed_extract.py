"""``extract --workers N`` reads the texts on a Dask cluster of N local worker processes and
stores exactly what a serial run stores (extraction/distributed.py, decision 0027); a text the
extractor fails on in a worker, or that kills its worker, is recorded as a failure and the
others are extracted."""

from __future__ import annotations

import json
import shutil
from contextlib import closing
from importlib import resources
from pathlib import Path
from typing import Any

import insider
from casebuilder.cli.demo import sample_paths
from conftest import run_cli

MENTION_COLUMNS = ("item_id", "key", "situation", "categories", "place_name", "place", "lat",
                   "lon", "date_start", "date_end", "date_precision", "date_expression",
                   "date_basis", "char_start", "char_end")
CLAIM_COLUMNS = ("item_id", "kind", "value", "rule", "char_start", "char_end",
                 "sentence_start", "sentence_end", "quote", "attributed_to", "speaker_role",
                 "source_kind", "party", "verb", "evidentiality", "qualifiers",
                 "also_attributed")
REPORT = ("KHARKIV, 12 May 2022. A Russian missile struck a residential building in Kharkiv on "
          "Monday, killing three civilians and injuring twelve, the regional governor Oleh "
          "Syniehubov said.\n")
#: A worker preload (Dask's own hook, read from the environment by the workers only): the
#: extractor raises on a text starting BOOM and its process dies on one starting KILL.
HOSTILE_WORKER = '''
import os
from casebuilder.extraction.mentions import MentionExtractor

# a preload may run more than once in a process: wrap the real method, never the wrapper
real = MentionExtractor.__dict__.get("real_extract_by_section", MentionExtractor.extract_by_section)

def hostile(self, source):
    if source.text.startswith("BOOM"):
        raise ValueError("cannot read this text")
    if source.text.startswith("KILL"):
        os._exit(9)
    return real(self, source)

MentionExtractor.real_extract_by_section = real
MentionExtractor.extract_by_section = hostile
'''


def stored(home: Path) -> dict[str, Any]:
    """The mentions and claims of the current runs (every column but ids) and the details of
    the extract entries of the custody log: what must not depend on how the texts were read."""
    with closing(insider.connect(home)) as db:
        mentions = db.execute(
            f"SELECT {', '.join('m.' + c for c in MENTION_COLUMNS)} FROM incident_mentions m "
            "JOIN extraction_runs r ON r.id = m.run_id WHERE r.current ORDER BY m.id").fetchall()
        claims = db.execute(
            f"SELECT m.key, {', '.join('c.' + c for c in CLAIM_COLUMNS)} FROM claims c "
            "JOIN incident_mentions m ON m.id = c.mention_id JOIN extraction_runs r "
            "ON r.id = m.run_id WHERE r.current ORDER BY c.id").fetchall()
        runs = db.execute("SELECT item_id, extractor, vocabulary_sha256, gazetteer, "
                          "source_sha256, mention_count, claim_count, results_sha256 "
                          "FROM extraction_runs WHERE current ORDER BY id").fetchall()
    return {"mentions": mentions, "claims": claims, "runs": runs,
            "entries": [(e["items"], e["details"]) for e in entries(home, "extract")]}


def entries(home: Path, action: str) -> list[dict[str, Any]]:
    lines = (home / "custody" / "log.jsonl").read_text().splitlines()
    return [e for e in map(json.loads, lines) if e["action"] == action]


def test_extract_on_two_workers_stores_what_a_serial_run_stores(tmp_path):
    serial, parallel = tmp_path / "serial", tmp_path / "parallel"
    with resources.as_file(resources.files("casebuilder.samples")) as folder:
        ingested = run_cli("ingest", "--no-extract", *sample_paths(Path(folder)), home=serial)
    assert ingested.returncode == 0, ingested.stdout + ingested.stderr
    shutil.copytree(serial, parallel)

    one = run_cli("extract", home=serial)
    two = run_cli("extract", "--workers", "2", home=parallel)
    assert one.returncode == 0 and two.returncode == 0, two.stdout + two.stderr
    assert two.stdout == one.stdout  # "Extraction: 9 texts read, ... claims; ..."

    expected, found = stored(serial), stored(parallel)
    assert len(expected["entries"]) >= 8 and len(expected["claims"]) > 100
    for what in ("runs", "entries", "mentions", "claims"):
        assert found[what] == expected[what], what
    checkpoints = [len(entries(home, "checkpoint")) for home in (serial, parallel)]
    assert checkpoints[0] == checkpoints[1]


def test_a_text_failing_or_killing_its_worker_is_recorded_and_the_others_extracted(tmp_path):
    texts = tmp_path / "texts"
    texts.mkdir()
    (texts / "a-good.txt").write_text(REPORT)
    (texts / "b-boom.txt").write_text("BOOM. " + REPORT)
    (texts / "c-good.txt").write_text(REPORT.replace("Kharkiv", "Odesa"))
    # last: the worker restarted after a death builds its tools again before it takes a text
    (texts / "d-kill.txt").write_text("KILL. " + REPORT)
    hook = tmp_path / "hostile_worker.py"
    hook.write_text(HOSTILE_WORKER)
    home = tmp_path / "home"
    assert run_cli("ingest", "--no-extract", texts, home=home).returncode == 0

    done = run_cli("extract", "--workers", "2", home=home,
                   env={"DASK_DISTRIBUTED__WORKER__PRELOAD": json.dumps([str(hook)])})
    assert done.returncode == 1, done.stdout + done.stderr  # partial failure
    assert "2 texts read" in done.stdout and "2 failed" in done.stdout, done.stdout
    assert "(b-boom.txt): the extractor failed: ValueError: cannot read this text" in done.stdout
    assert "(d-kill.txt): the extractor failed: the worker process reading this text died" \
        in done.stdout
    failed = {e["items"][0]["id"]: e["details"]["reason"] for e in entries(home, "extract-failed")}
    extracted = [e["items"][0]["id"] for e in entries(home, "extract")]
    assert sorted(failed) == [2, 4] and extracted == [1, 3]
    assert failed[2] == "the extractor failed: ValueError: cannot read this text"
    assert run_cli("verify", home=home).returncode == 0


class _Gone:
    """A task's future whose result went with a worker that died after computing it."""

    status = "lost"
    key = "lost-task"
    cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


def _steps_that_resend() -> Any:
    from casebuilder.extraction.distributed import _InOrder

    steps = object.__new__(_InOrder)  # no cluster: only ``came`` is under test
    steps.deaths, steps.losses, steps.read, steps.resent = {}, {}, {}, []
    steps.send = steps.resent.append
    return steps


def test_a_result_lost_with_a_dying_neighbour_is_read_again_and_not_counted_a_death():
    from types import SimpleNamespace

    from casebuilder.extraction.distributed import LOSSES

    steps = _steps_that_resend()
    jobs = [SimpleNamespace(item=SimpleNamespace(id=i)) for i in (7, 8)]
    gone = _Gone()
    steps.came(jobs, gone, None)
    assert gone.cancelled and steps.resent == [jobs]
    assert steps.deaths == {} and steps.read == {}  # neither text is taken for the killer
    for _ in range(LOSSES - 1):
        steps.came(jobs, _Gone(), None)
    assert len(steps.resent) == LOSSES


def test_a_cluster_that_keeps_losing_results_stops_the_batch():
    from types import SimpleNamespace

    import pytest

    from casebuilder.errors import CasebuilderError
    from casebuilder.extraction.distributed import LOSSES

    steps = _steps_that_resend()
    jobs = [SimpleNamespace(item=SimpleNamespace(id=7))]
    for _ in range(LOSSES):
        steps.came(jobs, _Gone(), None)
    with pytest.raises(CasebuilderError, match="lost the results"):
        steps.came(jobs, _Gone(), None)
