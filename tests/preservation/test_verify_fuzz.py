"""Verification never crashes on a damaged log line: whatever the bytes, it reports failures.

A log line is untrusted input. Hypothesis appends arbitrary bytes to the log, or puts them in
place of a line: raw bytes, a real line with a stretch replaced, and real entries whose fields
hold arbitrary JSON (lone surrogates, deep nesting, huge integers, floats, wrong types). Each
time ``verify_case`` must return a report that fails (and names a log entry or the log), and no
check may stop on the input.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from casebuilder.errors import CustodyLogError
from casebuilder.intake.ingest import ingest
from casebuilder.preservation.canonical import parse_canonical
from casebuilder.preservation.case import Case, init_case
from casebuilder.preservation.verify import verify_case


@pytest.fixture(scope="module")
def small_case(tmp_path_factory) -> Iterator[Case]:
    root = tmp_path_factory.mktemp("fuzz")
    evidence = root / "evidence"
    evidence.mkdir()
    (evidence / "statement.txt").write_text("Witness A: the shelling began at 10:00.\n")
    (evidence / "notes é.txt").write_text("Second statement, received by e-mail.\n")
    case = init_case(root / "home", name="fuzz", environ={})
    ingest(case, [evidence])
    assert verify_case(case).ok
    try:
        yield case
    finally:
        case.close()


def entry_lines(case: Case) -> list[bytes]:
    return case.paths.log.read_bytes().split(b"\n")[:-1]


json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(min_value=10**4300),
    st.floats(allow_nan=False), st.text(), st.sampled_from(["\ud800", "\udfff", "a\udc80b"]),
)
json_values = st.recursive(
    json_scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.text(max_size=8), children, max_size=4),
    ),
    max_leaves=12,
)
FIELDS = ["action", "actor", "case_id", "details", "items", "seq", "time", "tool"]


@st.composite
def damaged_line(draw: st.DrawFn, original: list[bytes]) -> bytes:
    kind = draw(st.sampled_from(["bytes", "splice", "fields", "nested"]))
    if kind == "bytes":
        return draw(st.binary(max_size=300))
    base = original[draw(st.integers(0, len(original) - 1))]
    if kind == "splice":
        start = draw(st.integers(0, len(base)))
        end = draw(st.integers(start, len(base)))
        return base[:start] + draw(st.binary(max_size=40)) + base[end:]
    if kind == "nested":
        depth = draw(st.integers(500, 200_000))
        return b"[" * depth + b"]" * draw(st.integers(0, depth))
    entry = json.loads(base)
    for name in draw(st.lists(st.sampled_from([*FIELDS, "ref", "origin"]), max_size=4)):
        value = draw(json_values)
        refs = entry.get("items")
        if name == "ref" and isinstance(refs, list) and refs and isinstance(refs[0], dict):
            refs[0][draw(st.sampled_from(["id", "role", "sha256", "size"]))] = value
        elif name == "origin" and isinstance(entry.get("details"), dict):
            entry["details"]["origin"] = value
        else:
            entry[name] = value
    ascii_only = draw(st.booleans())
    try:
        text = json.dumps(entry, sort_keys=True, separators=(",", ":"), ensure_ascii=ascii_only)
    except ValueError:  # an integer too long to write
        return base + b"0"
    return text.encode("utf-8", "surrogatepass")


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_verify_reports_any_damaged_log_line_and_never_crashes(small_case: Case, data) -> None:
    log = small_case.paths.log
    original = log.read_bytes()
    lines = entry_lines(small_case)
    line = data.draw(damaged_line(lines))
    if data.draw(st.booleans(), label="append"):
        damaged = original + line + data.draw(st.sampled_from([b"\n", b""]))
    else:
        index = data.draw(st.integers(0, len(lines) - 1), label="index")
        damaged = b"".join(x + b"\n" for x in [*lines[:index], line, *lines[index + 1:]])
    try:
        log.write_bytes(damaged)
        report = verify_case(small_case, settle_seconds=0)
    finally:
        log.write_bytes(original)
    problems = [str(f) for f in report.failures]
    assert not any("the check stopped on unexpected data" in p for p in problems), problems
    if damaged != original:
        assert not report.ok
        assert any(p.startswith(("log entry", "custody log")) for p in problems), problems
    assert verify_case(small_case, settle_seconds=0).ok


@given(raw=st.binary(max_size=200) | st.text().map(lambda t: t.encode("utf-8", "surrogatepass")))
def test_parse_canonical_raises_only_custody_log_error(raw: bytes) -> None:
    with contextlib.suppress(CustodyLogError):  # and nothing else
        parse_canonical(raw)


def test_a_lone_surrogate_is_a_custody_log_error_not_a_crash() -> None:
    with pytest.raises(CustodyLogError, match="lone surrogate"):
        parse_canonical(b'{"name":"\\ud800"}')
    with pytest.raises(CustodyLogError, match="nested too deeply"):
        parse_canonical(b"[" * 100_000 + b"]" * 100_000)
    with pytest.raises(CustodyLogError, match="not valid JSON"):
        parse_canonical(b"1" * 5000)
