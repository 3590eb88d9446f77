"""A parser that stalls or crashes on a crafted file is stopped; the batch goes on."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from casebuilder.intake.handlers.base import BID_CERTAIN, ParseResult, ParseSource, Sniff
from casebuilder.intake.ingest import Ingester
from casebuilder.preservation.verify import verify_case

SAMPLES = Path(__file__).resolve().parents[2] / "src" / "casebuilder" / "samples"


class StallingPdf:
    name = "pdf"
    media_type = "application/pdf"

    def __init__(self, misbehave: bool = True) -> None:
        self.misbehave = misbehave

    def bid(self, sniff: Sniff) -> int:
        return BID_CERTAIN if sniff.head.startswith(b"%PDF") else 0

    def parse(self, source: ParseSource) -> ParseResult:
        data = source.path.read_bytes()
        if self.misbehave and b"stall" in data:
            time.sleep(60)
        if self.misbehave and b"crash" in data:
            raise KeyError("a bug in the parser")
        if self.misbehave and b"die" in data:
            os.kill(os.getpid(), signal.SIGKILL)
        if self.misbehave and b"exit" in data:
            os._exit(3)
        return ParseResult(format="pdf", media_type=self.media_type, tool="test", text="ok")


def parse_entries(case) -> list[dict]:
    lines = case.paths.log.read_text(encoding="utf-8").splitlines()
    return [e for e in map(json.loads, lines) if e["action"] == "parse"]


def test_a_stalling_or_crashing_parser_is_contained(case, tmp_path):
    (tmp_path / "a-stall.pdf").write_bytes(b"%PDF-1.7 stall")
    (tmp_path / "b-crash.pdf").write_bytes(b"%PDF-1.7 crash")
    (tmp_path / "c-fine.pdf").write_bytes(b"%PDF-1.7 fine")
    ingester = Ingester(case, [StallingPdf()], parse_timeout=2.0)
    started = time.monotonic()
    report = ingester.run([tmp_path])
    assert time.monotonic() - started < 30
    by_name = {o.path.rsplit("/", 1)[-1]: o for o in report.outcomes}
    assert "took longer than 2 s" in by_name["a-stall.pdf"].reason
    assert by_name["a-stall.pdf"].parse_status == "stopped"
    assert "KeyError" in by_name["b-crash.pdf"].reason
    assert by_name["b-crash.pdf"].parse_status == "failed"  # an answer: final
    assert by_name["c-fine.pdf"].parse_status == "ok"


def test_a_parse_stopped_on_its_time_limit_or_a_dead_reader_is_tried_again(case, tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    for name, content in (("stall.pdf", b"%PDF-1.7 stall"), ("die.pdf", b"%PDF-1.7 die"),
                          ("exit.pdf", b"%PDF-1.7 exit")):
        (folder / name).write_bytes(content)
    first = Ingester(case, [StallingPdf()], parse_timeout=3.0).run([folder])
    by_name = {o.path.rsplit("/", 1)[-1]: o for o in first.outcomes}
    assert {o.parse_status for o in by_name.values()} == {"stopped"}
    assert "took longer than 3 s and was stopped" in by_name["stall.pdf"].reason
    assert "killed by signal SIGKILL" in by_name["die.pdf"].reason
    assert "(exit code 3)" in by_name["exit.pdf"].reason
    assert "read again when the file is ingested again" in by_name["exit.pdf"].reason
    assert by_name["stall.pdf"] in first.failures
    # The failure kind is data: in the parse entry, and the item's status says it.
    stopped = {e["details"]["stopped"] for e in parse_entries(case)}
    assert stopped == {"timeout", "crash"}
    assert verify_case(case).ok

    second = Ingester(case, [StallingPdf(misbehave=False)], parse_timeout=60).run([folder])
    assert [(o.status, o.parse_status, o.parsed) for o in second.outcomes] == \
        [("duplicate", "ok", True)] * 3
    assert len(second.parsed_item_ids) == 3
    assert verify_case(case).ok


def test_a_script_without_a_main_guard_is_not_run_again_by_the_readers(tmp_path):
    """A library user's script, as in the docs' examples, with no ``if __name__ ==
    "__main__"``: the child processes that read PDFs and HTML must not import it."""
    from test_handlers import make_pdf

    (tmp_path / "report.pdf").write_bytes(make_pdf(["Shelling of the market"]))
    script = tmp_path / "take_in.py"
    script.write_text(textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from casebuilder.intake.ingest import ingest
        from casebuilder.preservation.case import init_case

        print("SCRIPT BODY RUNS", flush=True)
        case = init_case(Path({str(tmp_path / "home")!r}), name="no guard", environ={{}})
        report = ingest(case, [Path({str(tmp_path / "report.pdf")!r}),
                               Path({str(SAMPLES / "2022-06-27-kremenchuk-mall.html")!r})])
        for o in report.outcomes:
            print("OUTCOME", o.format, o.parse_status, o.reason)
        case.close()
    """), encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("SCRIPT BODY RUNS") == 1, done.stdout + done.stderr
    outcomes = [line for line in done.stdout.splitlines() if line.startswith("OUTCOME")]
    assert outcomes == ["OUTCOME pdf ok None", "OUTCOME html ok None"], done.stdout
