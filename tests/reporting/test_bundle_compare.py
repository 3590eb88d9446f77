"""A bundle issued earlier defeats an insider who rewrites the whole case.

An insider holding the case key (or making a new key pair) can shift every time, recompute
every root and sign every checkpoint again: the rewritten case passes ``casebuilder verify``
on its own. A bundle handed out before still carries the old log, root and key, so
``casebuilder verify --against``, ``casebuilder bundle compare`` and ``verify_bundle.py
--against`` must each name the rewrite; and a key rotation the old key approved must pass.
The case, the bundles and the rewrite are real: bundles written by ``casebuilder bundle``, the
case home rewritten from outside with plain file and sqlite3 edits.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
import zipfile
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest
from court_bundles import bagit_ok
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import insider
from casebuilder.intake.ingest import ingest
from casebuilder.model.clock import format_utc, parse_utc
from casebuilder.preservation.case import init_case, open_case
from casebuilder.preservation.merkle import MerkleTree, leaf_hash
from casebuilder.reporting.bundle_compare import compare_case_with_bundle, read_bundle
from conftest import run_cli

SCRIPT = Path(__file__).resolve().parents[2] / "src/casebuilder/reporting/verify_bundle.py"
FIRST = ["2022-03-16-chernihiv-bread-line-1.txt", "2022-03-16-chernihiv-bread-line-1.meta.json"]
LATER = ["2022-04-08-kramatorsk-1.txt"]


@pytest.fixture(scope="module")
def made(tmp_path_factory, dev_reports) -> dict[str, Path]:
    """A case, its bundle 'early' (and a zip of it), more evidence, then its bundle 'late'."""
    root = tmp_path_factory.mktemp("compare")
    home = root / "home"
    case = init_case(home, name="Chernihiv bread line", environ={})
    try:
        ingest(case, [dev_reports / name for name in FIRST])
    finally:
        case.close()
    for out in ("early", "early.zip"):
        assert run_cli("bundle", "-o", root / out, home=home).returncode == 0
    case = open_case(home, environ={})
    try:
        ingest(case, [dev_reports / name for name in LATER])
    finally:
        case.close()
    assert run_cli("bundle", "-o", root / "late", home=home).returncode == 0
    return {"home": home, "early": root / "early", "early.zip": root / "early.zip",
            "late": root / "late"}


@pytest.fixture
def home(made, tmp_path) -> Path:
    return Path(shutil.copytree(made["home"], tmp_path / "home"))


# -- what an insider can do to a whole case ---------------------------------------------------


def canonical(value: object) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


TIMED_COLUMNS = [("items", "created_at"), ("origins", "received_at"),
                 ("derivations", "created_at"), ("intake_failures", "at"),
                 ("extraction_runs", "created_at"), ("analyst_decisions", "at"),
                 ("case_info", "created_at")]


def rewrite_case(home: Path, *, shift: timedelta = timedelta(0), new_key: bool = False,
                 edit: Callable[[list[dict]], None] | None = None) -> None:
    """Rewrite a case home consistently: every time moved by ``shift``, entries edited, the
    log and its database copy rewritten, every checkpoint signed again (with a new key pair
    if ``new_key``), so that the case verifies on its own."""
    def moved(text: str) -> str:
        return format_utc(parse_utc(text) + shift)

    keys = home / "keys"
    if new_key:
        key = Ed25519PrivateKey.generate()
        (keys / "case-signing-key.pem").write_bytes(key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption()))
        (keys / "case-public-key.pem").write_bytes(key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    else:
        key = serialization.load_pem_private_key(
            (keys / "case-signing-key.pem").read_bytes(), password=None)
    digest = hashlib.sha256(key.public_key().public_bytes(
        serialization.Encoding.Raw, serialization.PublicFormat.Raw)).hexdigest()
    log = home / "custody/log.jsonl"
    entries = [json.loads(line) for line in log.read_bytes().splitlines()]
    for entry in entries:
        entry["time"] = moved(entry["time"])
    entries[0]["details"]["public_key_sha256"] = digest
    if edit is not None:
        edit(entries)
    lines = [canonical(entry) for entry in entries]
    log.write_bytes(b"".join(line + b"\n" for line in lines))
    tree = MerkleTree([leaf_hash(line) for line in lines])
    records = []
    for text in (home / "custody/checkpoints.jsonl").read_text().splitlines():
        old = json.loads(text)
        signed = {"case_id": old["case_id"], "root": tree.root(old["tree_size"]).hex(),
                  "time": moved(old["time"]), "tree_size": old["tree_size"], "type": old["type"]}
        records.append(dict(signed, public_key_sha256=digest,
                            signature=base64.b64encode(key.sign(canonical(signed))).decode()))
    (home / "custody/checkpoints.jsonl").write_text(
        "".join(canonical(r).decode() + "\n" for r in records))
    with insider.connect(home) as db:
        for seq, line in enumerate(lines):
            db.execute("UPDATE custody_events SET entry = ?, leaf_hash = ?, time = ? "
                       "WHERE seq = ?", (line.decode(), leaf_hash(line).hex(),
                                         entries[seq]["time"], seq))
        for table, column in TIMED_COLUMNS:
            by = db.row_key
            for row_id, value in db.execute(f"SELECT {by}, {column} FROM {table}").fetchall():
                db.execute(f"UPDATE {table} SET {column} = ? WHERE {by} = ?",
                           (moved(value), row_id))
        ids = [row[0] for row in db.execute("SELECT id FROM checkpoints ORDER BY id")]
        for row_id, record in zip(ids, records, strict=True):
            db.execute("UPDATE checkpoints SET root = ?, time = ?, public_key_sha256 = ?, "
                       "signature = ?, timestamp_token = NULL, record = ? WHERE id = ?",
                       (record["root"], record["time"], digest, record["signature"],
                        canonical(record).decode(), row_id))
        db.execute("UPDATE log_state SET byte_length = ?", (log.stat().st_size,))
        db.execute("UPDATE case_info SET public_key_sha256 = ?", (digest,))
        # ... and the seal of the last unit of work, signed again like the checkpoints
        size, root = tree.size, tree.root().hex()
        seal = {"base_root": root, "base_size": size, "case_id": entries[0]["case_id"],
                "public_key_sha256": digest, "root": root, "time": entries[-1]["time"],
                "tree_size": size, "type": "casebuilder-seal/v1"}
        seal_line = canonical(dict(seal, signature=base64.b64encode(
            key.sign(canonical(seal))).decode())).decode()
        db.execute("UPDATE log_state SET seal = ?, frontier = NULL", (seal_line,))
    (home / "custody/seal.json").write_text(seal_line + "\n")


def back_date(home: Path) -> None:
    """The whole case moved 30 days back, with a new key pair."""
    rewrite_case(home, shift=-timedelta(days=30), new_key=True)


def passes_on_its_own(home: Path) -> None:
    result = run_cli("verify", home=home)
    assert result.returncode == 0, result.stdout + result.stderr


def verify_against(home: Path, bundle: Path) -> tuple[int, str]:
    result = run_cli("verify", "--against", bundle, home=home)
    return result.returncode, result.stdout + result.stderr


# -- casebuilder verify --against --------------------------------------------------------------


def test_a_case_that_grew_faithfully_extends_its_earlier_bundles(made, home):
    code, output = verify_against(home, made["early.zip"])
    assert code == 0, output
    assert "1 bundles compared" in output
    case = open_case(home, environ={})
    try:
        for bundle in (made["early"], made["late"]):
            comparison = compare_case_with_bundle(case, read_bundle(bundle))
            assert comparison.ok, comparison.differences
    finally:
        case.close()


def test_a_back_dated_re_keyed_case_passes_alone_but_not_against_an_earlier_bundle(made, home):
    back_date(home)
    passes_on_its_own(home)
    code, output = verify_against(home, made["early.zip"])
    assert code == 1, output
    for fragment in (
        "against bundle early.zip: log entry 0 (and",
        "is not consistent with bundle early.zip's signed root",
        "checkpoint 0 of bundle early.zip",
        "no key rotation approved by the earlier key leads to it",
        "The custody log failed its checks, so this verification was not appended",
    ):
        assert fragment in output, f"{fragment!r} not in:\n{output}"


def test_one_entry_rewritten_with_the_case_key(made, home):
    def other_tool(entries: list[dict]) -> None:
        entries[1]["tool"] = "casebuilder 0.0.9 (the version the defence says was flawed)"

    rewrite_case(home, edit=other_tool)
    passes_on_its_own(home)
    code, output = verify_against(home, made["early"])
    assert code == 1, output
    assert "log entry 1 (and 0 more of the first" in output
    assert "entries were rewritten" in output
    assert "re-keyed" not in output  # the same key


def test_an_item_the_bundle_holds_must_still_be_held_with_its_hashes(made, home):
    with insider.connect(home) as db:
        db.execute("UPDATE items SET sha512 = ? WHERE id = 2", ("0" * 128,))
    code, output = verify_against(home, made["early"])
    assert code == 1, output
    assert "against bundle early: item 2: bundle early holds it with sha256" in output


def test_an_unreadable_bundle_is_an_error(home, tmp_path):
    (tmp_path / "not-a-bundle").mkdir()
    code, output = verify_against(home, tmp_path / "not-a-bundle")
    assert code == 2, output
    assert "cannot read data/custody/log.jsonl" in output


# -- key rotation ------------------------------------------------------------------------------


def test_a_key_rotation_the_old_key_approved_passes_every_comparison(made, home, tmp_path):
    result = run_cli("key", "rotate", "--reason", "the laptop was lost", home=home)
    assert result.returncode == 0, result.stderr
    passes_on_its_own(home)
    code, output = verify_against(home, made["early"])
    assert code == 0, output
    assert "the key was rotated from" in output and "'the laptop was lost'" in output
    assert run_cli("bundle", "-o", tmp_path / "rotated", home=home).returncode == 0
    done = run_cli("bundle", "compare", made["early"], tmp_path / "rotated")
    assert done.returncode == 0, done.stdout + done.stderr
    code, output = script(tmp_path / "rotated", "--against", made["early"])
    assert code == 0, output
    assert "the case key was rotated from" in output


def test_a_rotation_the_old_key_did_not_sign_is_caught(made, home):
    """An insider re-keys the case and logs a 'rotation' the old key never approved."""
    assert run_cli("key", "rotate", "--reason", "routine", home=home).returncode == 0

    def forge_approval(entries: list[dict]) -> None:
        rotation = next(e for e in entries if e["action"] == "key-rotation")
        signature = bytearray(base64.b64decode(rotation["details"]["signature"]))
        signature[0] ^= 1
        rotation["details"]["signature"] = base64.b64encode(bytes(signature)).decode()

    rewrite_case(home, edit=forge_approval)
    result = run_cli("verify", home=home)
    assert result.returncode == 1
    assert "key rotation: the old key's signature over the rotation statement does not " \
           "verify" in result.stdout
    code, output = verify_against(home, made["early"])
    assert code == 1
    assert "(key rotation): the old key's signature over the rotation statement" in output


# -- casebuilder bundle compare and verify_bundle.py --against ----------------------------------


def compare(first: Path, second: Path) -> tuple[int, str]:
    result = run_cli("bundle", "compare", first, second)
    return result.returncode, result.stdout + result.stderr


def script(bundle: Path, *args: str | Path) -> tuple[int, str]:
    done = subprocess.run(["python3", str(SCRIPT), str(bundle), *map(str, args)],
                          capture_output=True, text=True, check=False,
                          env={"PATH": "/usr/bin:/bin"})
    return done.returncode, done.stdout + done.stderr


def test_two_bundles_of_a_faithful_case_agree_in_either_order(made):
    for first, second in ((made["early"], made["late"]), (made["late"], made["early.zip"])):
        code, output = compare(first, second)
        assert code == 0, output
        assert "OK: the later bundle extends the earlier one." in output
    code, output = script(made["early"], "--against", made["late"])
    assert code == 0, output
    assert "RESULT: the later bundle extends the earlier one." in output


@pytest.fixture(scope="module")
def forged(made, tmp_path_factory) -> Path:
    """A bundle of the back-dated, re-keyed case: it passes every check on its own."""
    root = tmp_path_factory.mktemp("forged")
    home = Path(shutil.copytree(made["home"], root / "home"))
    back_date(home)
    assert run_cli("bundle", "-o", root / "forged", home=home).returncode == 0
    bundle = root / "forged"
    code, output = script(bundle)
    assert code == 0, output
    assert bagit_ok(bundle)
    return bundle


def test_a_bundle_of_the_rewritten_case_disagrees_with_the_earlier_one(made, forged):
    code, output = compare(made["early.zip"], forged)
    assert code == 1, output
    for fragment in ("DIFFERENT:", "log entry 0 (and", "is not consistent with",
                     "checkpoints were signed again", "re-keyed"):
        assert fragment in output, f"{fragment!r} not in:\n{output}"


def test_verify_bundle_py_against_the_earlier_bundle_names_the_rewrite(made, forged):
    code, output = script(forged, "--against", made["early"])
    assert code == 1, output
    for fragment in ("[against] log.jsonl line 1 (entry 0): differs between the two bundles",
                     "[against] checkpoint.json: the later signed root",
                     "[against] checkpoints.jsonl line 1: of the earlier bundle is not the same",
                     "[against] public_key.pem: the earlier bundle is signed by key"):
        assert fragment in output, f"{fragment!r} not in:\n{output}"


def test_an_unreadable_bundle_is_an_error_for_both_tools(made, tmp_path):
    (tmp_path / "empty").mkdir()
    assert compare(made["early"], tmp_path / "empty")[0] == 2
    (tmp_path / "broken.zip").write_bytes(b"PK not really a zip")
    assert compare(made["early"], tmp_path / "broken.zip")[0] == 2
    assert script(made["early"], "--against", tmp_path / "broken.zip")[0] == 2


def test_a_zip_holding_two_folders_is_refused(made, tmp_path):
    with zipfile.ZipFile(tmp_path / "two.zip", "w") as zf:
        zf.writestr("a/bagit.txt", "x")
        zf.writestr("b/bagit.txt", "x")
    code, output = compare(made["early"], tmp_path / "two.zip")
    assert code == 2 and "should hold one bundle folder" in output


def test_the_manual_log_comparison_in_verify_md(made, forged):
    """Section 5.8: the earlier log is, byte for byte, the start of the later one."""
    guide = (made["late"] / "VERIFY.md").read_text(encoding="utf-8")
    command = next(line for line in guide.splitlines() if line.startswith("head -c"))
    command = command.replace("../EARLIER", str(made["early"]))

    def run(bag: Path) -> subprocess.CompletedProcess:
        return subprocess.run(["bash", "-c", command], cwd=bag, capture_output=True, text=True,
                              check=False, env={"PATH": "/usr/bin:/bin"})

    done = run(made["late"])
    assert done.returncode == 0 and done.stdout == "", done.stdout + done.stderr
    assert run(forged).returncode != 0
