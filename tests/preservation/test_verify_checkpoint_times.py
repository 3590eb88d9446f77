"""Checkpoints in the database and the times a checkpoint vouches for.

- Commands read the separate columns of the ``checkpoints`` table (the last checkpoint's size
  and time decide what the next one signs), so each column edited in the database, with the
  file and the row's ``record`` text left alone, must fail ``verify``, naming the column.
- No entry may be dated after the first checkpoint that signs it: an insider holding the key
  who re-signs a checkpoint with an earlier time is caught by the entries it covers.
- A checkpoint's RFC 3161 token is requested as the checkpoint is signed: its genTime must not
  be before the checkpoint's time (beyond a clock-skew allowance) nor long after it (the
  window, a day by default), which is what a back-dated checkpoint stamped later looks like.
  The tokens here are real ones from the local test authority; the case's clock is set off.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import insider
from casebuilder.model.clock import format_utc
from casebuilder.preservation.case import Case, init_case, open_case
from casebuilder.preservation.checkpoint import read_checkpoint_lines, sign_checkpoint
from casebuilder.preservation.merkle import MerkleTree, leaf_hash
from casebuilder.preservation.verify import verify_case
from conftest import run_cli


def small_case(home: Path, **kwargs) -> Case:
    """A case of a few entries under three checkpoints, made by the library as commands do."""
    case = init_case(home, name="checkpoint rows", environ=kwargs.pop("environ", {}), **kwargs)
    for note in ("first", "second"):
        with case.transaction() as tx:
            tx.record("annotate", details={"note": note})
        case.checkpoint()
    return case


@pytest.fixture
def home(tmp_path) -> Path:
    small_case(tmp_path / "home").close()
    return tmp_path / "home"


def failures(home: Path, **kwargs) -> list[str]:
    case = open_case(home, environ={})
    try:
        return [str(f) for f in verify_case(case, settle_seconds=0, **kwargs).failures]
    finally:
        case.close()


def sql(home: Path, statement: str, *values: object) -> None:
    with insider.connect(home) as db:
        db.execute(statement, values)


def cell(home: Path, column: str, row_id: int) -> object:
    with insider.connect(home) as db:
        return db.execute(f"SELECT {column} FROM checkpoints WHERE id = ?", (row_id,)).fetchone()[0]


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("time", "2020-01-01T00:00:00.000000Z"),
        ("root", "ab" * 32),
        ("signature", "QUJD" * 21 + "QQ=="),
        ("tree_size", 1),
        ("public_key_sha256", "cd" * 32),
        ("timestamp_token", b"\x30\x03\x02\x01\x01"),
    ],
)
def test_each_checkpoint_column_edited_in_the_database_is_named(home, column, value):
    row_id = 2  # the second checkpoint: the file and its record column are left as they are
    old = cell(home, column, row_id)
    sql(home, f"UPDATE checkpoints SET {column} = ? WHERE id = ?", value, row_id)
    found = failures(home)
    assert any(f"checkpoint 1: the database's checkpoints.{column} is" in f for f in found), found
    if column in ("time", "root", "signature", "tree_size"):
        assert any("the database row's signature does not verify" in f for f in found), found
    sql(home, f"UPDATE checkpoints SET {column} = ? WHERE id = ?", old, row_id)
    assert failures(home) == []


def test_the_real_command_names_an_edited_checkpoint_time(home):
    sql(home, "UPDATE checkpoints SET time = '2020-01-01T00:00:00.000000Z' WHERE id = 3")
    result = run_cli("verify", home=home)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "checkpoint 2: the database's checkpoints.time is '2020-01-01T00:00:00.000000Z', but " \
           "checkpoints.jsonl has" in result.stdout


def resign_last_checkpoint(case: Case, time: str) -> None:
    """What an insider holding the key can do: sign the last checkpoint again with another
    time, and write it to the file and to the database (record and columns) alike."""
    lines = read_checkpoint_lines(case.paths.checkpoints)
    last = json.loads(lines[-1])
    log = case.paths.log.read_bytes().split(b"\n")[:-1]
    tree = MerkleTree([leaf_hash(line) for line in log])
    signed, _ = sign_checkpoint(case.signer, case_id=case.case_id, tree_size=last["tree_size"],
                                root=tree.root(last["tree_size"]), time=time)
    lines[-1] = signed.as_line()
    case.paths.checkpoints.write_text("".join(line + "\n" for line in lines))
    with insider.connect(case.paths.root) as db:
        db.execute("UPDATE checkpoints SET time = ?, signature = ?, record = ? "
                   "WHERE id = (SELECT max(id) FROM checkpoints)",
                   (signed.time, signed.signature, lines[-1]))


def test_entries_dated_after_the_checkpoint_that_signs_them(home):
    case = open_case(home, environ={})
    try:
        previous = json.loads(read_checkpoint_lines(case.paths.checkpoints)[-2])
        resign_last_checkpoint(case, previous["time"])  # not before the one before: in order
        found = [str(f) for f in verify_case(case, settle_seconds=0).failures]
        log = [json.loads(line) for line in case.paths.log.read_text().splitlines()]
        last = log[-1]
        assert f"log entry {last['seq']}: is dated {last['time']}, after checkpoint 2 " \
               f"({previous['time']}), the first checkpoint that signs it" in "\n".join(found)
        assert all("signature" not in f for f in found), found  # it is a genuine signature
    finally:
        case.close()


# -- RFC 3161 tokens against the checkpoint's time -------------------------------------------


@pytest.fixture(autouse=True)
def _no_proxies(monkeypatch):
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")


def stamped_case(tmp_path: Path, local_tsa, offset: timedelta) -> Case:
    """A case whose clock is ``offset`` off the authority's (negative: behind it)."""
    return small_case(tmp_path / "home", environ={"CASEBUILDER_TSA_URL": local_tsa.url},
                      clock=lambda: datetime.now(UTC) + offset)


def token_failures(case: Case, **kwargs) -> list[str]:
    return [str(f) for f in verify_case(case, settle_seconds=0, **kwargs).failures
            if "time-stamp token's genTime" in f.problem]


def test_a_token_stamped_days_after_its_checkpoint_fails(tmp_path, local_tsa):
    case = stamped_case(tmp_path, local_tsa, -timedelta(days=3))
    try:
        found = token_failures(case)
        assert len(found) == 3, found  # every checkpoint
        assert "checkpoint 0: its time-stamp token's genTime" in found[0]
        assert " days, " in found[0] and "after the checkpoint's own time" in found[0]
        assert "more than the 1 day, 0:00:00 allowed" in found[0]
        assert "as a back-dated checkpoint would be" in found[0]
    finally:
        case.close()


def test_a_token_before_its_checkpoint_beyond_the_clock_skew_fails(tmp_path, local_tsa):
    case = stamped_case(tmp_path, local_tsa, timedelta(hours=1))
    try:
        found = token_failures(case)
        assert len(found) == 3, found
        assert "before the checkpoint's own time" in found[0]
        assert "more than the 0:05:00 allowed for clock skew" in found[0]
    finally:
        case.close()


def test_tokens_within_the_window_and_the_skew_pass_and_the_window_is_configurable(
    tmp_path, local_tsa
):
    case = stamped_case(tmp_path, local_tsa, -timedelta(hours=2))
    try:
        assert verify_case(case, settle_seconds=0).ok
        assert len(token_failures(case, timestamp_window=timedelta(hours=1))) == 3
    finally:
        case.close()
    config = (tmp_path / "home" / "config.toml").read_text()
    assert "window_hours = 24.0" in config
    (tmp_path / "home" / "config.toml").write_text(
        config.replace("window_hours = 24.0", "window_hours = 1"))
    again = open_case(tmp_path / "home", environ={})
    try:
        assert len(token_failures(again)) == 3
    finally:
        again.close()
    ahead = stamped_case(tmp_path / "ahead", local_tsa, timedelta(minutes=1))
    try:
        assert verify_case(ahead, settle_seconds=0).ok  # within the clock-skew allowance
    finally:
        ahead.close()


def test_a_checkpoint_is_never_dated_before_the_entries_it_signs(tmp_path):
    """The clock steps back between a command's entries and its checkpoint."""
    now = [datetime(2026, 11, 29, 9, 0, tzinfo=UTC)]
    case = init_case(tmp_path / "home", environ={}, clock=lambda: now[0])
    try:
        now[0] = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)
        with case.transaction() as tx:
            tx.record("annotate", details={"note": "before the step back"})
        now[0] = datetime(2026, 11, 29, 9, 30, tzinfo=UTC)
        signed = case.checkpoint().checkpoint
        assert signed is not None
        assert signed.time == format_utc(datetime(2026, 11, 29, 10, 0, tzinfo=UTC))
        assert verify_case(case, settle_seconds=0).ok
    finally:
        case.close()
