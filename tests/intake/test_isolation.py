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

import pytest

from casebuilder.errors import UnreadableContent
from casebuilder.intake.handlers.base import BID_CERTAIN, ParseResult, ParseSource, Sniff
from casebuilder.intake.ingest import Ingester
from casebuilder.intake.isolation import ParserStopped, ParseServer
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


# -- the parse server ---------------------------------------------------------------------------
class Probe:
    """A PDF "reader" that reports where it ran, or misbehaves as its file tells it to."""

    name = "pdf"
    media_type = "application/pdf"

    def __init__(self, pid_file: Path | None = None) -> None:
        self.pid_file = pid_file

    def bid(self, sniff: Sniff) -> int:
        return BID_CERTAIN if sniff.head.startswith(b"%PDF") else 0

    def parse(self, source: ParseSource) -> ParseResult:
        data = source.path.read_bytes()
        if self.pid_file is not None:
            self.pid_file.write_text(str(os.getppid()), encoding="utf-8")
        if b"stall" in data:
            time.sleep(60)
        if b"loud-exit" in data:
            sys.stderr.write("warming up\nthe parser fell over on page 7\n")
            sys.stderr.flush()
            os._exit(5)
        if b"die" in data:
            os.kill(os.getpid(), signal.SIGSEGV)
        if b"hog" in data:
            hog = bytearray(1024**3)  # a GiB: more than the test's allowance
            return ParseResult(format="pdf", media_type=self.media_type, tool="test",
                               text=str(len(hog)))
        if b"leave" in data:  # something the reader started and left behind
            stray = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
            return ParseResult(format="pdf", media_type=self.media_type, tool="test",
                               metadata={"stray": stray.pid})
        import resource

        return ParseResult(
            format="pdf", media_type=self.media_type, tool="test", text="ok",
            metadata={"server": os.getppid(), "reader": os.getpid(),
                      "memory": resource.getrlimit(resource.RLIMIT_AS)[0]})


def _source(tmp_path: Path, name: str, content: bytes) -> ParseSource:
    path = tmp_path / name
    path.write_bytes(content)
    return ParseSource(path=path, name=name, size=len(content))


def _running(pid: int) -> bool:
    """Whether a process is running (a zombie waiting to be reaped is not)."""
    deadline = time.monotonic() + 5
    while True:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return False
        if state in {"Z", "X"}:
            return False
        if time.monotonic() > deadline:
            return True
        time.sleep(0.05)


MEMORY = 2 * 1024**3


def test_reads_share_one_server_and_a_stall_replaces_it(tmp_path):
    fine = _source(tmp_path, "fine.pdf", b"%PDF-1.7 fine")
    with ParseServer() as server:
        assert server.pid is None  # started on the first read, not before
        first = server.parse(Probe(), fine, timeout=30, memory=MEMORY)
        second = server.parse(Probe(), fine, timeout=30, memory=MEMORY)
        old = server.pid
        assert first.metadata["server"] == second.metadata["server"] == old
        assert first.metadata["reader"] != second.metadata["reader"]  # a fork per read

        with pytest.raises(ParserStopped) as stopped:
            server.parse(Probe(), _source(tmp_path, "stall.pdf", b"%PDF-1.7 stall"),
                         timeout=1.5, memory=MEMORY)
        assert stopped.value.kind == "timeout"
        assert "took longer than 2 s and was stopped" in str(stopped.value)
        assert server.pid is None
        assert old is not None and not _running(old)

        third = server.parse(Probe(), fine, timeout=30, memory=MEMORY)
        assert third.text == "ok"
        assert third.metadata["server"] == server.pid != old


def test_a_crashing_reader_is_reported_and_the_server_keeps_serving(tmp_path):
    fine = _source(tmp_path, "fine.pdf", b"%PDF-1.7 fine")
    with ParseServer() as server:
        pid = server.parse(Probe(), fine, timeout=30, memory=MEMORY).metadata["server"]
        with pytest.raises(ParserStopped) as loud:
            server.parse(Probe(), _source(tmp_path, "a.pdf", b"%PDF-1.7 loud-exit"),
                         timeout=30, memory=MEMORY)
        assert loud.value.kind == "crash"
        assert str(loud.value) == (
            "the pdf reader stopped without an answer (exit code 5): the parser fell over on "
            "page 7; it is read again when the file is ingested again")
        with pytest.raises(ParserStopped) as killed:
            server.parse(Probe(), _source(tmp_path, "b.pdf", b"%PDF-1.7 die"),
                         timeout=30, memory=MEMORY)
        assert killed.value.kind == "crash"
        assert "(killed by signal SIGSEGV)" in str(killed.value)
        after = server.parse(Probe(), fine, timeout=30, memory=MEMORY)
        assert after.text == "ok"
        assert server.pid == pid == after.metadata["server"]


def test_a_dead_server_is_a_crash_and_the_next_read_starts_a_fresh_one(tmp_path):
    fine = _source(tmp_path, "fine.pdf", b"%PDF-1.7 fine")
    pid_file = tmp_path / "server.pid"
    with ParseServer() as server:
        server.parse(Probe(), fine, timeout=30, memory=MEMORY)
        old = server.pid
        assert old is not None
        # The server dies while a read is under way.
        reading = _source(tmp_path, "stall.pdf", b"%PDF-1.7 stall")
        killer = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
            import os, pathlib, signal, time
            path = pathlib.Path({str(pid_file)!r})
            while not path.exists() or not path.read_text():
                time.sleep(0.02)
            os.kill({old}, signal.SIGKILL)
        """)])
        with pytest.raises(ParserStopped) as stopped:
            server.parse(Probe(pid_file), reading, timeout=30, memory=MEMORY)
        killer.wait(10)
        assert stopped.value.kind == "crash"
        assert "(killed by signal SIGKILL)" in str(stopped.value)
        after = server.parse(Probe(), fine, timeout=30, memory=MEMORY)
        assert after.text == "ok"
        assert server.pid not in {None, old}


def test_the_memory_limit_applies_to_each_reader_not_to_the_server(tmp_path):
    fine = _source(tmp_path, "fine.pdf", b"%PDF-1.7 fine")
    with ParseServer() as server:
        with pytest.raises(UnreadableContent) as refused:
            server.parse(Probe(), _source(tmp_path, "hog.pdf", b"%PDF-1.7 hog"),
                         timeout=30, memory=768 * 1024**2)
        assert not isinstance(refused.value, ParserStopped)
        assert str(refused.value) == "the pdf reader ran out of its memory allowance"
        small = server.parse(Probe(), fine, timeout=30, memory=MEMORY)
        large = server.parse(Probe(), fine, timeout=30, memory=2 * MEMORY)
        assert (small.metadata["memory"], large.metadata["memory"]) == (MEMORY, 2 * MEMORY)
        assert small.metadata["server"] == large.metadata["server"]


def test_closing_the_server_leaves_nothing_running(tmp_path):
    server = ParseServer()
    result = server.parse(Probe(), _source(tmp_path, "leave.pdf", b"%PDF-1.7 leave"),
                          timeout=30, memory=MEMORY)
    stray, pid = result.metadata["stray"], server.pid
    assert isinstance(stray, int) and pid is not None
    assert _running(pid) and _running(stray)
    server.close()
    server.close()  # again: harmless
    assert not _running(pid)
    assert not _running(stray)


def test_an_ingest_run_stops_its_server_however_it_ends(case, tmp_path, monkeypatch):
    folder = tmp_path / "in"
    folder.mkdir()
    for name in ("a.pdf", "b.pdf"):
        (folder / name).write_bytes(b"%PDF-1.7 fine " + name.encode())
    pid_file = tmp_path / "server.pid"
    report = Ingester(case, [Probe(pid_file)], parse_timeout=30).run([folder])
    assert [o.parse_status for o in report.outcomes] == ["ok", "ok"]
    assert not _running(int(pid_file.read_text()))  # the server both files were read in

    # Interrupted (Ctrl-C) while the run is under way.
    (folder / "c.pdf").write_bytes(b"%PDF-1.7 fine c")
    pid_file.unlink()

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(Ingester, "_finish_parse", interrupted)
    with pytest.raises(KeyboardInterrupt):
        Ingester(case, [Probe(pid_file)], parse_timeout=30).run([folder / "c.pdf"])
    assert not _running(int(pid_file.read_text()))


def test_a_reader_the_server_cannot_load_is_a_crash_and_the_server_keeps_serving(tmp_path):
    import types

    ghost = types.ModuleType("ghost_reader_not_on_any_path")
    ghost.Ghost = type("Ghost", (Probe,), {"__module__": ghost.__name__})  # type: ignore[attr-defined]
    sys.modules[ghost.__name__] = ghost
    fine = _source(tmp_path, "fine.pdf", b"%PDF-1.7 fine")
    try:
        with ParseServer() as server:
            pid = server.parse(Probe(), fine, timeout=30, memory=MEMORY).metadata["server"]
            with pytest.raises(ParserStopped) as stopped:
                server.parse(ghost.Ghost(), fine, timeout=30, memory=MEMORY)
            assert stopped.value.kind == "crash"
            assert "(its request could not be loaded): ModuleNotFoundError" in str(stopped.value)
            assert server.parse(Probe(), fine, timeout=30, memory=MEMORY).metadata["server"] == pid
    finally:
        del sys.modules[ghost.__name__]
