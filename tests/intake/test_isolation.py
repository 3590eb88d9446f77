"""A parser that stalls or crashes on a crafted file is stopped; the batch goes on."""

from __future__ import annotations

import time

from casebuilder.intake.handlers.base import BID_CERTAIN, ParseResult, ParseSource, Sniff
from casebuilder.intake.ingest import Ingester


class StallingPdf:
    name = "pdf"
    media_type = "application/pdf"

    def bid(self, sniff: Sniff) -> int:
        return BID_CERTAIN if sniff.head.startswith(b"%PDF") else 0

    def parse(self, source: ParseSource) -> ParseResult:
        if b"stall" in source.path.read_bytes():
            time.sleep(60)
        if b"crash" in source.path.read_bytes():
            raise KeyError("a bug in the parser")
        return ParseResult(format="pdf", media_type=self.media_type, tool="test", text="ok")


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
    assert "KeyError" in by_name["b-crash.pdf"].reason
    assert by_name["c-fine.pdf"].parse_status == "ok"
