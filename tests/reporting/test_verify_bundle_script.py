"""The standalone checker shipped in every court bundle (reporting/verify_bundle.py).

The bundles here are built by hand, straight from docs/specs/bundle-format.md, with
``cryptography`` for the signatures and casebuilder's own Merkle tree for roots and proofs, so
the script (an independent, standard-library-only implementation) is checked against a second
implementation. The script is run the way a court expert runs it: as a subprocess, from inside
the bundle.
"""

from __future__ import annotations

import ast
import base64
import hashlib
import importlib.util
import json
import shutil
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import ModuleType

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from casebuilder.preservation.merkle import MerkleTree, leaf_hash

REPORTING = Path(__file__).resolve().parents[2] / "src" / "casebuilder" / "reporting"
SCRIPT = REPORTING / "verify_bundle.py"
GUIDE = REPORTING / "VERIFY.md"

CASE_ID = "4b1c0d6e-case-0001"
SIGNED_FIELDS = ("case_id", "root", "time", "tree_size", "type")


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("verify_bundle_under_test", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


vb = load_script()


# ---------------------------------------------------------------------------------------------
# Building a bundle by hand, following the spec
# ---------------------------------------------------------------------------------------------


def canonical(value) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def case_key(seed: int = 7) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(bytes([seed]) * 32)


def raw_public(key: Ed25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(
        serialization.Encoding.Raw, serialization.PublicFormat.Raw
    )


def pem_public(key: Ed25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )


ITEMS = {
    1: ("report.pdf", b"%PDF-1.4\n% a report on the shelling of the market\n%%EOF\n"),
    2: ("témoignage A.txt", "Témoin A : « j'ai vu l'impact à 10 h ».\n".encode()),
    3: ("photo.jpg", b"\xff\xd8\xff\xe0" + bytes(range(256)) * 8 + b"\xff\xd9"),
    4: ("report.pdf.txt", b"a report on the shelling of the market\n"),
}


# The log is dated an hour ago, so that a real time-stamp token made during the test is
# within the window the checker allows after its checkpoint's time.
BASE_TIME = datetime.now(UTC).replace(second=0, microsecond=0) - timedelta(hours=1)


def utc(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def time_of(seq: float) -> str:
    return utc(BASE_TIME + timedelta(seconds=seq))


def item_record(item_id: int, role: str = "original") -> dict:
    data = ITEMS[item_id][1]
    return {
        "id": item_id,
        "role": role,
        "sha256": hashlib.sha256(data).hexdigest(),
        "sha512": hashlib.sha512(data).hexdigest(),
        "size": len(data),
    }


def receipt(item_id: int) -> dict:
    """The origin an ingest entry records for a file received from /evidence/."""
    name = ITEMS[item_id][0]
    return {"origin": {"name": name, "relation": "file", "source_path": f"/evidence/{name}"}}


def log_entries() -> list[dict]:
    plan = [
        ("create-case", [], {"note": "é"}),
        ("ingest", [item_record(1, role="file")], receipt(1)),
        ("ingest", [item_record(3, role="file")], receipt(3)),
        ("ingest", [item_record(2, role="file")], receipt(2)),
        ("derive", [item_record(1, role="source"), item_record(4, role="derived")],
         {"kind": "text", "tool": "pdftotext", "tool_version": "24.02"}),
        # The bundle's own entry lists what it holds. Item 1 again: its proof must still
        # point at entry 1.
        ("bundle", [item_record(1), item_record(2), item_record(3), item_record(4, "derived")],
         {"format": "bagit", "item_count": 4, "output": "OUT"}),
    ]
    return [
        {
            "action": action,
            "actor": "a.investigator",
            "case_id": CASE_ID,
            "details": details,
            "items": items,
            "seq": seq,
            "time": time_of(seq),
            "tool": "casebuilder 0.1.0",
        }
        for seq, (action, items, details) in enumerate(plan)
    ]


def item_history(entries: list[dict], item_id: int) -> dict:
    """item.json's origins and derived_from, from the entries that recorded them."""
    origins = [
        {"relation": "file", "path": e["details"]["origin"]["source_path"],
         "name": e["details"]["origin"]["name"], "received_at": e["time"], "actor": e["actor"],
         "source_mtime": None, "parent_item": None, "sidecar_item": None, "collection": None,
         "entry": e["seq"]}
        for e in entries if e["action"] == "ingest" and e["items"][0]["id"] == item_id
    ]
    derive = next((e for e in entries if e["action"] == "derive"
                   and e["items"][1]["id"] == item_id), None)
    derived_from = None if derive is None else {
        "item": derive["items"][0]["id"], "sha256": derive["items"][0]["sha256"],
        "entry": derive["seq"], **derive["details"]}
    return {"origins": origins, "derived_from": derived_from,
            "role": "original" if origins else "derived"}


def make_checkpoint(key: Ed25519PrivateKey, root: bytes, size: int, time: str) -> dict:
    signed = {
        "case_id": CASE_ID,
        "root": root.hex(),
        "time": time,
        "tree_size": size,
        "type": "casebuilder-checkpoint/v1",
    }
    checkpoint = dict(signed)
    checkpoint["public_key_sha256"] = hashlib.sha256(raw_public(key)).hexdigest()
    checkpoint["signature"] = base64.b64encode(key.sign(canonical(signed))).decode()
    return checkpoint


def first_entry_for(entries: list[dict], item_id: int) -> int:
    sha256 = hashlib.sha256(ITEMS[item_id][1]).hexdigest()
    return next(
        e["seq"]
        for e in entries
        if any(r["id"] == item_id and r["sha256"] == sha256 for r in e["items"])
    )


def write_json(path: Path, value, pretty: bool = True) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(value, indent=2, ensure_ascii=False) if pretty else canonical(value).decode()
    path.write_text(text + "\n", encoding="utf-8")


BAGIT_TXT = b"BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n"
BUNDLE_ENTRY = 5


def signed_bag_info() -> dict[str, str]:
    return {"Bagging-Date": BASE_TIME.strftime("%Y-%m-%d"),
            "Bag-Software-Agent": "casebuilder 0.1.0 (hand-built test bundle)",
            "Casebuilder-Case-Id": CASE_ID}


def listed(path: str, data: bytes) -> dict:
    return {"path": path, "sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}


def item_json(entries: list[dict], item_id: int) -> bytes:
    name, data = ITEMS[item_id]
    record = {
        "id": item_id, "file": name, "size": len(data),
        "sha256": hashlib.sha256(data).hexdigest(), "sha512": hashlib.sha512(data).hexdigest(),
        "media_type": "application/octet-stream",
        "metadata": {"duration_seconds": 1.5},  # item.json may hold floats
        "entries": [e["seq"] for e in entries if any(r["id"] == item_id for r in e["items"])],
        **item_history(entries, item_id),
    }
    return (json.dumps(record, indent=2, ensure_ascii=False) + "\n").encode()


def sign_bundle_entry(entries: list[dict], records: dict[int, bytes]) -> None:
    """Format 2: the bundle entry lists every file known before its checkpoint (each item's
    file and item.json, the tag files), the bag-info fields and the checkpoints before it."""
    files = []
    for item_id, (name, data) in ITEMS.items():
        files += [listed(f"data/items/{item_id}/{name}", data),
                  listed(f"data/items/{item_id}/item.json", records[item_id])]
    entries[BUNDLE_ENTRY]["details"].update(
        bundle_format=2, checkpoints_before=1, bag_info=signed_bag_info(), files=files,
        tag_files=[listed("bagit.txt", BAGIT_TXT), listed("VERIFY.md", GUIDE.read_bytes()),
                   listed("verify_bundle.py", SCRIPT.read_bytes())])


def write_payload(root: Path, key: Ed25519PrivateKey, version: int = 2) -> None:
    entries = log_entries()
    records = {item_id: item_json(entries, item_id) for item_id in ITEMS}
    if version >= 2:
        sign_bundle_entry(entries, records)
    lines = [canonical(e) for e in entries]
    custody = root / "data" / "custody"
    custody.mkdir(parents=True)
    (custody / "log.jsonl").write_bytes(b"".join(line + b"\n" for line in lines))
    tree = MerkleTree([leaf_hash(line) for line in lines])
    early = make_checkpoint(key, tree.root(3), 3, time_of(2.5))
    latest = make_checkpoint(key, tree.root(len(lines)), len(lines), time_of(60))
    write_json(custody / "checkpoint.json", latest)
    history = canonical(early) + b"\n" + canonical(latest) + b"\n"
    (custody / "checkpoints.jsonl").write_bytes(history)
    (custody / "public_key.pem").write_bytes(pem_public(key))
    for item_id, (name, data) in ITEMS.items():
        folder = root / "data" / "items" / str(item_id)
        folder.mkdir(parents=True)
        (folder / name).write_bytes(data)
        (folder / "item.json").write_bytes(records[item_id])
        index = first_entry_for(entries, item_id)
        write_json(root / "data" / "proofs" / f"{item_id}.json", {
            "item": item_id,
            "sha256": hashlib.sha256(data).hexdigest(),
            "entry_index": index,
            "leaf_hash": leaf_hash(lines[index]).hex(),
            "tree_size": len(lines),
            "root": tree.root().hex(),
            "proof": [h.hex() for h in tree.inclusion_proof(index, len(lines))],
        })


def manifest_path(path: str) -> str:
    """RFC 8493's escaping of %, CR and LF in manifest paths."""
    return path.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def write_manifest(root: Path, name: str, algorithm: str, paths: list[str]) -> None:
    lines = []
    for path in sorted(paths):
        digest = hashlib.new(algorithm, (root / path).read_bytes()).hexdigest()
        lines.append(f"{digest}  {manifest_path(path)}\n")
    (root / name).write_text("".join(lines), encoding="utf-8")


def checkpoint_bag_info(root: Path) -> str:
    """The bag-info.txt lines that repeat checkpoint.json (none if it cannot be read)."""
    try:
        checkpoint = json.loads((root / CUSTODY / "checkpoint.json").read_text(encoding="utf-8"))
        return (f"Casebuilder-Checkpoint-Size: {checkpoint['tree_size']}\n"
                f"Casebuilder-Checkpoint-Root: {checkpoint['root']}\n"
                f"Casebuilder-Public-Key-SHA256: {checkpoint['public_key_sha256']}\n")
    except (ValueError, KeyError, TypeError, OSError):
        return ""


def rebag(root: Path) -> None:
    """(Re)write bag-info.txt and every manifest for what is on disk now, as a forger would."""
    payload = sorted(p.relative_to(root).as_posix() for p in (root / "data").rglob("*")
                     if p.is_file())
    octets = sum((root / p).stat().st_size for p in payload)
    (root / "bag-info.txt").write_text(
        "".join(f"{label}: {value}\n" for label, value in signed_bag_info().items())
        + f"Payload-Oxum: {octets}.{len(payload)}\n"
        f"Casebuilder-Bundle-Entry: {BUNDLE_ENTRY}\n" + checkpoint_bag_info(root),
        encoding="utf-8",
    )
    for algorithm in ("sha256", "sha512"):
        write_manifest(root, f"manifest-{algorithm}.txt", algorithm, payload)
    tags = ["bagit.txt", "bag-info.txt", "manifest-sha256.txt", "manifest-sha512.txt",
            "VERIFY.md", "verify_bundle.py"]
    for algorithm in ("sha256", "sha512"):
        write_manifest(root, f"tagmanifest-{algorithm}.txt", algorithm, tags)


def build_bundle(root: Path, key: Ed25519PrivateKey | None = None, version: int = 2) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "bagit.txt").write_bytes(BAGIT_TXT)
    shutil.copyfile(SCRIPT, root / "verify_bundle.py")
    shutil.copyfile(GUIDE, root / "VERIFY.md")
    write_payload(root, key or case_key(), version)
    rebag(root)
    return root


def run_script(bundle: Path, *args: str, cwd: Path | None = None) -> tuple[int, str]:
    command = [sys.executable, str(bundle / "verify_bundle.py"), *args]
    done = subprocess.run(command, capture_output=True, text=True, cwd=cwd, timeout=120,
                          encoding="utf-8")
    return done.returncode, done.stdout + done.stderr


def verify(bundle: Path) -> tuple[int, str]:
    return run_script(bundle, str(bundle))


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    return build_bundle(tmp_path / "OUT")


def failure_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if " FAIL [" in line]


# ---------------------------------------------------------------------------------------------
# An intact bundle
# ---------------------------------------------------------------------------------------------


def test_an_intact_bundle_passes(bundle: Path) -> None:
    code, output = verify(bundle)
    assert code == 0, output
    assert "RESULT: all checks passed." in output
    assert failure_lines(output) == []
    payload_files = sum(1 for p in (bundle / "data").rglob("*") if p.is_file())
    assert f"payload files  {payload_files:>6} of {payload_files}" in output
    assert "log entries         6 of 6" in output
    assert "checkpoints         2 of 2" in output
    assert "items               4 of 4" in output
    assert "proofs              4 of 4" in output


def test_a_format_1_bundle_still_passes_and_says_what_it_lacks(tmp_path: Path) -> None:
    """Bundles written before the bundle entry listed files (format 1) are still checked."""
    bundle = build_bundle(tmp_path / "OLD", version=1)
    code, output = verify(bundle)
    assert code == 0, output
    assert "this is a format 1 bundle" in output
    assert "a deleted line of checkpoints.jsonl other than the last cannot be detected" in output
    assert "(format 1: the entry lists no files)" in output


def test_a_file_added_to_a_format_1_bundle_is_caught_by_the_layout(tmp_path: Path) -> None:
    bundle = build_bundle(tmp_path / "OLD", version=1)
    for planted in ("data/items/3/planted.jpg", "data/custody/notes.txt", "data/summary.txt"):
        (bundle / planted).write_bytes(b"not part of the evidence")
    rebag(bundle)
    code, output = verify(bundle)
    assert code == 1, output
    for planted in ("data/items/3/planted.jpg", "data/custody/notes.txt", "data/summary.txt"):
        assert f"[files] {planted}: is in data/ but has no place in the bundle's layout" in output


def test_an_unknown_bundle_format_is_refused(tmp_path: Path, monkeypatch) -> None:
    real = sign_bundle_entry

    def future(entries: list[dict], records: dict[int, bytes]) -> None:
        real(entries, records)
        entries[BUNDLE_ENTRY]["details"]["bundle_format"] = 3

    monkeypatch.setitem(globals(), "sign_bundle_entry", future)
    code, output = verify(build_bundle(tmp_path / "NEW"))
    assert code == 1, output
    assert "written in bundle format 3, which this script does not know" in output


def test_the_hand_built_bundle_is_a_valid_bag_for_bagit_python(bundle: Path) -> None:
    bagit = pytest.importorskip("bagit")
    bagit.Bag(str(bundle)).validate()


def test_percent_encoded_file_names_in_manifests_are_decoded(tmp_path: Path,
                                                             monkeypatch) -> None:
    """RFC 8493 writes %, CR and LF in manifest paths as %25, %0D and %0A."""
    odd_name = "100%25 sure\nsecond line.txt"  # a literal "%25" and a line break
    monkeypatch.setitem(ITEMS, 2, (odd_name, ITEMS[2][1]))
    bundle = build_bundle(tmp_path / "OUT")
    assert "100%2525 sure%0Asecond line.txt" in (bundle / "manifest-sha256.txt").read_text()
    code, output = verify(bundle)
    assert code == 0, output


def test_by_default_it_checks_the_directory_it_is_in(bundle: Path, tmp_path: Path) -> None:
    code, output = run_script(bundle, cwd=tmp_path)
    assert code == 0, output
    assert str(bundle.resolve()) in output


def test_usage_errors_exit_2(bundle: Path, tmp_path: Path) -> None:
    assert run_script(bundle, str(bundle), "extra")[0] == 2
    code, output = run_script(bundle, str(tmp_path / "no-such-bundle"))
    assert code == 2
    assert "not a directory" in output
    assert run_script(bundle, "--no-such-option")[0] == 2
    assert run_script(bundle, "--help")[0] == 0


def test_the_script_imports_only_the_standard_library() -> None:
    tree = ast.parse(SCRIPT.read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert imported - {"__future__"} <= set(sys.stdlib_module_names), imported


def test_the_script_parses_as_python_3_8() -> None:
    ast.parse(SCRIPT.read_text(encoding="utf-8"), feature_version=(3, 8))


def python_3_8() -> str | None:
    candidates = [shutil.which("python3.8")]
    candidates += [str(p) for p in Path.home().glob(".pyenv/versions/3.8*/bin/python3.8")]
    for candidate in filter(None, candidates):
        try:
            done = subprocess.run([candidate, "-c", "import sys; print(sys.version_info[:2])"],
                                  capture_output=True, text=True, timeout=30)
        except OSError:
            continue
        if done.returncode == 0 and done.stdout.strip() == "(3, 8)":
            return candidate
    return None


def test_the_script_runs_on_python_3_8_when_available(bundle: Path) -> None:
    interpreter = python_3_8()
    if interpreter is None:
        pytest.skip("no Python 3.8 interpreter here")
    done = subprocess.run([interpreter, str(bundle / "verify_bundle.py")], capture_output=True,
                          text=True, encoding="utf-8", timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


# ---------------------------------------------------------------------------------------------
# Tampering: each is caught, with a message naming the problem
# ---------------------------------------------------------------------------------------------

CUSTODY = Path("data/custody")


def read_lines(bundle: Path) -> list[bytes]:
    return (bundle / CUSTODY / "log.jsonl").read_bytes().splitlines()


def write_lines(bundle: Path, lines: list[bytes]) -> None:
    (bundle / CUSTODY / "log.jsonl").write_bytes(b"".join(line + b"\n" for line in lines))


def flip_payload_byte(bundle: Path) -> None:
    path = bundle / "data/items/3/photo.jpg"
    data = bytearray(path.read_bytes())
    data[100] ^= 0x01
    path.write_bytes(bytes(data))


def edit_log_line(bundle: Path) -> None:
    lines = read_lines(bundle)
    entry = json.loads(lines[2])
    entry["actor"] = "someone.else"
    lines[2] = canonical(entry)  # still canonical: only the Merkle tree can catch it
    write_lines(bundle, lines)


def delete_log_line(bundle: Path) -> None:
    lines = read_lines(bundle)
    del lines[4]
    write_lines(bundle, lines)


def reorder_log_lines(bundle: Path) -> None:
    lines = read_lines(bundle)
    lines[3], lines[4] = lines[4], lines[3]
    write_lines(bundle, lines)


def append_log_line(bundle: Path) -> None:
    lines = read_lines(bundle)
    entry = json.loads(lines[-1])
    entry.update(seq=len(lines), time=time_of(59), action="verify", items=[])
    write_lines(bundle, [*lines, canonical(entry)])


def edit_checkpoint(bundle: Path, change) -> None:
    path = bundle / CUSTODY / "checkpoint.json"
    checkpoint = json.loads(path.read_text(encoding="utf-8"))
    change(checkpoint)
    write_json(path, checkpoint)


def alter_checkpoint_root(bundle: Path) -> None:
    edit_checkpoint(bundle, lambda c: c.update(root="ab" * 32))


def corrupt_signature(bundle: Path) -> None:
    def change(checkpoint: dict) -> None:
        signature = bytearray(base64.b64decode(checkpoint["signature"]))
        signature[5] ^= 0x40
        checkpoint["signature"] = base64.b64encode(bytes(signature)).decode()

    edit_checkpoint(bundle, change)


def swap_public_key(bundle: Path) -> None:
    (bundle / CUSTODY / "public_key.pem").write_bytes(pem_public(case_key(seed=99)))


def swap_public_key_and_its_digest(bundle: Path) -> None:
    swap_public_key(bundle)
    digest = hashlib.sha256(raw_public(case_key(seed=99))).hexdigest()
    edit_checkpoint(bundle, lambda c: c.update(public_key_sha256=digest))


def change_proof_element(bundle: Path) -> None:
    path = bundle / "data/proofs/2.json"
    proof = json.loads(path.read_text(encoding="utf-8"))
    proof["proof"][1] = "cd" * 32
    write_json(path, proof)


def remove_payload_file(bundle: Path) -> None:
    (bundle / "data/items/2/témoignage A.txt").unlink()


def add_payload_file(bundle: Path) -> None:
    (bundle / "data/items/3/planted.jpg").write_bytes(b"not part of the evidence")


def change_manifest_hash(bundle: Path) -> None:
    path = bundle / "manifest-sha256.txt"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    for number, line in enumerate(lines):
        if "data/items/1/report.pdf" in line and not line.rstrip().endswith(".txt"):
            lines[number] = "0" * 64 + line[64:]
    path.write_text("".join(lines), encoding="utf-8")


# (tamper, messages expected as is, messages expected after the forger also re-writes the bag)
TAMPERS = {
    "flip one byte of a payload file": (
        flip_payload_byte,
        ["data/items/3/photo.jpg: sha256 in manifest-sha256.txt is",
         "data/items/3/photo.jpg: sha512 in manifest-sha512.txt is"],
        ["[item] data/items/3/photo.jpg: sha256 in item.json is",
         "[item] data/items/3/photo.jpg: sha512 in item.json is"],
    ),
    "edit one log line": (
        edit_log_line,
        ["data/custody/log.jsonl: sha256 in manifest-sha256.txt is"],
        ["but the Merkle root of the 6 log lines is",
         "[proof] data/proofs/3.json: leaf_hash is",
         "[checkpoints] checkpoints.jsonl line 1: root is"],
    ),
    "delete a log line": (
        delete_log_line,
        ["data/custody/log.jsonl: sha256 in manifest-sha256.txt is"],
        ["log.jsonl line 5 (entry 4): seq is 5, expected 4",
         "tree_size is 6, but log.jsonl has 5 lines",
         "but the Merkle root of the 5 log lines is"],
    ),
    "reorder two log lines": (
        reorder_log_lines,
        ["data/custody/log.jsonl: sha256 in manifest-sha256.txt is"],
        ["log.jsonl line 4 (entry 3): seq is 4, expected 3",
         "log.jsonl line 5 (entry 4): seq is 3, expected 4",
         f"log.jsonl line 5 (entry 4): time {time_of(3)} is earlier",
         "but the Merkle root of the 6 log lines is"],
    ),
    "append a log line": (
        append_log_line,
        ["data/custody/log.jsonl: sha256 in manifest-sha256.txt is"],
        ["tree_size is 6, but log.jsonl has 7 lines",
         "the first 6 log lines do match the signed root"],
    ),
    "alter the checkpoint root": (
        alter_checkpoint_root,
        ["data/custody/checkpoint.json: sha256 in manifest-sha256.txt is"],
        ["data/custody/checkpoint.json: root is abab",
         "data/custody/checkpoint.json: Ed25519 signature does not verify",
         "[proof] data/proofs/1.json: root is",
         "[proof] data/proofs/1.json: the audit path does not lead from entry 1"],
    ),
    "corrupt the signature": (
        corrupt_signature,
        ["data/custody/checkpoint.json: sha256 in manifest-sha256.txt is"],
        ["data/custody/checkpoint.json: Ed25519 signature does not verify"],
    ),
    "swap the public key": (
        swap_public_key,
        ["data/custody/public_key.pem: sha256 in manifest-sha256.txt is"],
        ["data/custody/checkpoint.json: public_key_sha256 is",
         "data/custody/checkpoint.json: Ed25519 signature does not verify",
         "checkpoints.jsonl line 1: Ed25519 signature does not verify"],
    ),
    "swap the public key and its digest": (
        swap_public_key_and_its_digest,
        ["data/custody/public_key.pem: sha256 in manifest-sha256.txt is"],
        ["data/custody/checkpoint.json: Ed25519 signature does not verify"],
    ),
    "change a proof element": (
        change_proof_element,
        ["data/proofs/2.json: sha256 in manifest-sha256.txt is"],
        ["[proof] data/proofs/2.json: the audit path does not lead from entry 3"],
    ),
    "remove a file from data/": (
        remove_payload_file,
        ["data/items/2/témoignage A.txt: is listed in manifest-sha256.txt but is not in",
         "data/items/2/témoignage A.txt: is listed in manifest-sha512.txt but is not in",
         "bag-info.txt: Payload-Oxum says"],
        ["[item] data/items/2/témoignage A.txt: the item's stored file is missing"],
    ),
    "add an extra file in data/": (
        add_payload_file,
        ["data/items/3/planted.jpg: is in data/ but not listed in manifest-sha256.txt",
         "data/items/3/planted.jpg: is in data/ but not listed in manifest-sha512.txt",
         "bag-info.txt: Payload-Oxum says"],
        ["[files] data/items/3/planted.jpg: is in data/ but is not listed in log.jsonl line 6 "
         "(entry 5), the signed entry that made this bundle"],
    ),
    "change a manifest hash": (
        change_manifest_hash,
        ["data/items/1/report.pdf: sha256 in manifest-sha256.txt is 0000000000",
         "manifest-sha256.txt: sha256 in tagmanifest-sha256.txt is",
         "manifest-sha256.txt: sha512 in tagmanifest-sha512.txt is"],
        None,  # re-writing the manifests undoes this tamper
    ),
}


@pytest.mark.parametrize("name", list(TAMPERS))
def test_each_tamper_is_caught_by_the_manifests(bundle: Path, name: str) -> None:
    tamper, expected, _ = TAMPERS[name]
    tamper(bundle)
    code, output = verify(bundle)
    assert code == 1, output
    assert "RESULT: FAILED" in output
    for message in expected:
        assert message in output, f"{message!r} missing from:\n{output}"


@pytest.mark.parametrize("name", [n for n, t in TAMPERS.items() if t[2] is not None])
def test_each_tamper_is_caught_even_when_the_bag_is_rewritten(bundle: Path, name: str) -> None:
    """A forger can re-write the unsigned manifests; the custody checks must still catch it."""
    tamper, _, expected = TAMPERS[name]
    tamper(bundle)
    rebag(bundle)
    code, output = verify(bundle)
    assert code == 1, output
    assert not any("[bagit]" in line for line in failure_lines(output)), output
    for message in expected:
        assert message in output, f"{message!r} missing from:\n{output}"


def test_two_tampers_give_two_failures_not_just_the_first(bundle: Path) -> None:
    flip_payload_byte(bundle)
    corrupt_signature(bundle)
    rebag(bundle)
    code, output = verify(bundle)
    assert code == 1
    failures = failure_lines(output)
    assert any("data/items/3/photo.jpg: sha256 in item.json" in f for f in failures), output
    assert any("checkpoint.json: Ed25519 signature does not verify" in f for f in failures)
    assert len(failures) >= 2


def test_unrelated_manifest_and_payload_failures_are_all_listed(bundle: Path) -> None:
    change_manifest_hash(bundle)
    add_payload_file(bundle)
    flip_payload_byte(bundle)
    code, output = verify(bundle)
    assert code == 1
    for message in ("data/items/1/report.pdf: sha256 in manifest-sha256.txt",
                    "data/items/3/planted.jpg: is in data/ but not listed",
                    "data/items/3/photo.jpg: sha256 in manifest-sha256.txt"):
        assert message in output


def test_a_non_canonical_log_line_is_named(bundle: Path) -> None:
    lines = read_lines(bundle)
    lines[1] = lines[1].replace(b'"action":', b'"action": ')
    lines[2] = lines[2].replace(b'"seq":2', b'"seq":2.0')
    write_lines(bundle, lines)
    rebag(bundle)
    code, output = verify(bundle)
    assert code == 1
    assert "log.jsonl line 2 (entry 1): is valid JSON but not canonical" in output
    assert "log.jsonl line 3 (entry 2): holds the floating-point number 2.0" in output


def test_a_checkpoint_older_than_the_one_before_is_caught(bundle: Path, tmp_path: Path) -> None:
    path = bundle / CUSTODY / "checkpoints.jsonl"
    early, latest = path.read_bytes().splitlines()
    path.write_bytes(latest + b"\n" + early + b"\n")
    rebag(bundle)
    code, output = verify(bundle)
    assert code == 1
    assert "checkpoints.jsonl line 2: tree_size 3 is smaller than 6" in output


def test_a_manifest_path_escaping_the_bag_is_refused(bundle: Path) -> None:
    with (bundle / "manifest-sha256.txt").open("a", encoding="utf-8") as manifest:
        manifest.write(f"{'0' * 64}  ../outside.txt\n")
        manifest.write(f"{'0' * 64}  /etc/passwd\n")
    code, output = verify(bundle)
    assert code == 1
    assert "the path '../outside.txt' climbs out of its directory with '..'; refused" in output
    assert "the path '/etc/passwd' is an absolute path; refused" in output


def test_a_proof_pointing_at_a_later_entry_is_caught(bundle: Path) -> None:
    lines = read_lines(bundle)
    tree = MerkleTree([leaf_hash(line) for line in lines])
    path = bundle / "data/proofs/1.json"
    proof = json.loads(path.read_text(encoding="utf-8"))
    proof.update(entry_index=5, leaf_hash=leaf_hash(lines[5]).hex(),
                 proof=[h.hex() for h in tree.inclusion_proof(5)])
    write_json(path, proof)
    rebag(bundle)
    code, output = verify(bundle)
    assert code == 1
    assert "entry_index is 5, but entry 1 already recorded this item" in output


GARBAGE_TARGETS = [
    "data/custody/checkpoint.json",
    "data/custody/checkpoints.jsonl",
    "data/custody/log.jsonl",
    "data/custody/public_key.pem",
    "data/items/1/item.json",
    "data/proofs/1.json",
    "bagit.txt",
    "bag-info.txt",
    "manifest-sha256.txt",
]


@pytest.mark.parametrize("garbage", ["[]", "null", '"text"', "{}", "{not json", "\u00ff\u0000",
                                     '{"id": {"x": 1}, "file": 5, "proof": "ab", "root": 7,'
                                     ' "tree_size": -1, "items": 3, "seq": true}'])
@pytest.mark.parametrize("target", GARBAGE_TARGETS)
def test_malformed_files_are_reported_not_crashed_on(bundle: Path, target: str,
                                                      garbage: str) -> None:
    (bundle / target).write_text(garbage + "\n", encoding="latin-1")
    if not target.startswith(("bagit.txt", "bag-info", "manifest")):
        rebag(bundle)
    code, output = verify(bundle)
    assert code == 1, output
    assert "[internal]" not in output, output
    assert "Traceback" not in output, output


# ---------------------------------------------------------------------------------------------
# The pure-Python Ed25519 verifier against RFC 8032 section 7.1
# ---------------------------------------------------------------------------------------------

RFC8032_VECTORS = {
    "TEST 1": (
        "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
        "",
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555f"
        "b8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
    ),
    "TEST 2": (
        "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
        "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
        "72",
        "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
        "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
    ),
}


@pytest.mark.parametrize("name", list(RFC8032_VECTORS))
def test_rfc_8032_vectors_verify(name: str) -> None:
    secret, public, message, signature = (bytes.fromhex(v) for v in RFC8032_VECTORS[name])
    key = Ed25519PrivateKey.from_private_bytes(secret)
    assert raw_public(key) == public  # the vector is transcribed right
    assert key.sign(message) == signature
    assert vb.ed25519_verify(public, message, signature) is True


@pytest.mark.parametrize("name", list(RFC8032_VECTORS))
def test_rfc_8032_vectors_fail_when_altered(name: str) -> None:
    _, public, message, signature = (bytes.fromhex(v) for v in RFC8032_VECTORS[name])
    for bit in (0, 100, 255, 256, 300, 511):
        flipped = bytearray(signature)
        flipped[bit // 8] ^= 1 << (bit % 8)
        assert vb.ed25519_verify(public, message, bytes(flipped)) is False, bit
    assert vb.ed25519_verify(public, message + b"!", signature) is False
    other_public = bytearray(public)
    other_public[0] ^= 1
    assert vb.ed25519_verify(bytes(other_public), message, signature) is False


def test_ed25519_rejects_s_not_below_the_group_order() -> None:
    _, public, message, signature = (bytes.fromhex(v) for v in RFC8032_VECTORS["TEST 1"])
    s = int.from_bytes(signature[32:], "little")
    malleated = signature[:32] + (s + vb.GROUP_ORDER).to_bytes(32, "little")
    assert vb.ed25519_verify(public, message, malleated) is False


def test_ed25519_rejects_non_canonical_point_encodings() -> None:
    p = vb.FIELD_PRIME
    assert vb.decode_point((p + 1).to_bytes(32, "little")) is None  # y >= p
    assert vb.decode_point((1 | 1 << 255).to_bytes(32, "little")) is None  # x = 0 with sign 1
    assert vb.decode_point((1).to_bytes(32, "little")) is not None  # the neutral point
    assert vb.decode_point(b"\x00" * 31) is None


def test_ed25519_agrees_with_cryptography_on_random_messages() -> None:
    key = case_key(seed=42)
    for size in (0, 1, 31, 32, 33, 200):
        message = hashlib.sha512(bytes([size])).digest() * (size // 64 + 1)
        message = message[:size]
        assert vb.ed25519_verify(raw_public(key), message, key.sign(message)) is True


def test_the_pem_reader_extracts_the_raw_key() -> None:
    key = case_key()
    assert vb.public_key_from_pem(pem_public(key).decode()) == raw_public(key)
    with pytest.raises(ValueError):
        vb.public_key_from_pem("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n")


# ---------------------------------------------------------------------------------------------
# The Merkle tree, against casebuilder's implementation
# ---------------------------------------------------------------------------------------------


def test_merkle_roots_and_proofs_agree_with_casebuilder() -> None:
    leaves = [leaf_hash(f"entry {i}".encode()) for i in range(40)]
    tree = MerkleTree(leaves)
    prefix = vb.prefix_roots(leaves, range(41))
    for size in range(41):
        assert vb.merkle_root(leaves[:size]) == tree.root(size)
        assert prefix[size] == tree.root(size)
        for index in range(size):
            proof = tree.inclusion_proof(index, size)
            root = tree.root(size)
            assert vb.verify_inclusion(leaves[index], index, size, proof, root)
            assert not vb.verify_inclusion(leaves[index], index, size, [*proof, root], root)
            if size > 1:
                assert not vb.verify_inclusion(leaves[index], (index + 1) % size, size, proof,
                                               root)
    assert vb.merkle_root([]) == hashlib.sha256(b"").digest()
    assert vb.leaf_hash(b"x") == hashlib.sha256(b"\x00x").digest()


def test_consistency_proofs_agree_with_casebuilder() -> None:
    """The script's RFC 9162 consistency proofs (for --against) against casebuilder's."""
    leaves = [leaf_hash(f"entry {i}".encode()) for i in range(33)]
    tree = MerkleTree(leaves)
    for new in range(len(leaves) + 1):
        for old in range(new + 1):
            proof = vb.consistency_proof(leaves[:new], old)
            assert proof == tree.consistency_proof(old, new), (old, new)
            assert vb.verify_consistency(old, new, tree.root(old), tree.root(new), proof)
            if 0 < old < new:
                other = bytes([tree.root(old)[0] ^ 1]) + tree.root(old)[1:]
                assert not vb.verify_consistency(old, new, other, tree.root(new), proof)
                assert not vb.verify_consistency(old, new, tree.root(old), other, proof)
                if proof:
                    assert not vb.verify_consistency(old, new, tree.root(old), tree.root(new),
                                                     proof[:-1])


def test_manifest_paths_are_percent_decoded_once() -> None:
    assert vb.decode_manifest_path("data/a%0Ab%0dc%25d") == "data/a\nb\rc%d"
    assert vb.decode_manifest_path("data/100%250A") == "data/100%0A"
    assert vb.decode_manifest_path("data/50%") == "data/50%"


def test_paths_leaving_the_bag_are_recognised() -> None:
    for path in ("../x", "data/../../x", "/etc/passwd", "C:/x", "data\\..\\..\\x"):
        assert vb.escape_reason(path) is not None, path
    for path in ("data/items/1/a..b", "data/x", "manifest-sha256.txt"):
        assert vb.escape_reason(path) is None, path


# ---------------------------------------------------------------------------------------------
# RFC 3161 time-stamp tokens and the openssl commands of VERIFY.md
# ---------------------------------------------------------------------------------------------

TSA_CONFIG = """\
[ tsa ]
default_tsa = tsa_config
[ tsa_config ]
serial = ./serial
signer_cert = ./tsa.pem
signer_key = ./tsa.key
signer_digest = sha256
default_policy = 1.2.3.4.1
other_policies = 1.2.3.4.5
digests = sha256, sha512
ess_cert_id_alg = sha256
accuracy = secs:1
ordering = no
tsa_name = no
ess_cert_id_chain = no
"""


def openssl(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=60)


def make_timestamp_token(folder: Path, digest_hex: str) -> bytes:
    """A real RFC 3161 token from a throwaway TSA run with the openssl command line."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    folder.mkdir()
    (folder / "ts.cnf").write_text(TSA_CONFIG)
    (folder / "serial").write_text("01\n")
    (folder / "ext.cnf").write_text("extendedKeyUsage=critical,timeStamping\n"
                                    "basicConstraints=CA:FALSE\n")
    steps = [
        ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
         "-keyout", "ca.key", "-out", "TSA_CA.pem", "-subj", "/CN=Test TSA CA", "-days", "30",
         "-addext", "basicConstraints=critical,CA:TRUE",
         "-addext", "keyUsage=critical,keyCertSign"],
        ["req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
         "-keyout", "tsa.key", "-out", "tsa.csr", "-subj", "/CN=Test TSA"],
        ["x509", "-req", "-in", "tsa.csr", "-CA", "TSA_CA.pem", "-CAkey", "ca.key",
         "-CAcreateserial", "-out", "tsa.pem", "-days", "30", "-extfile", "ext.cnf"],
        ["ts", "-query", "-digest", digest_hex, "-sha256", "-cert", "-out", "q.tsq"],
        ["ts", "-reply", "-config", "ts.cnf", "-queryfile", "q.tsq", "-token_out",
         "-out", "token.der"],
    ]
    for step in steps:
        done = openssl(*step, cwd=folder)
        if done.returncode != 0:
            pytest.skip(f"openssl could not act as a test TSA: {done.stderr[-300:]}")
    return (folder / "token.der").read_bytes()


def signed_message(bundle: Path) -> bytes:
    checkpoint = json.loads((bundle / CUSTODY / "checkpoint.json").read_text(encoding="utf-8"))
    return canonical({name: checkpoint[name] for name in SIGNED_FIELDS})


def add_timestamp(bundle: Path, token: bytes, write_tsr: bool = True) -> None:
    """The token in checkpoint.json and in its line of checkpoints.jsonl, as casebuilder
    writes both."""
    edit_checkpoint(bundle, lambda c: c.update(timestamp_token=base64.b64encode(token).decode()))
    history = bundle / CUSTODY / "checkpoints.jsonl"
    lines = history.read_bytes().splitlines()
    last = json.loads(lines[-1])
    last["timestamp_token"] = base64.b64encode(token).decode()
    history.write_bytes(b"".join(line + b"\n" for line in [*lines[:-1], canonical(last)]))
    if write_tsr:
        (bundle / CUSTODY / "checkpoint.tsr").write_bytes(token)
    rebag(bundle)


def test_a_timestamped_bundle_passes_and_the_printed_openssl_command_works(
    bundle: Path, tmp_path: Path
) -> None:
    digest = hashlib.sha256(signed_message(bundle)).hexdigest()
    token = make_timestamp_token(tmp_path / "tsa", digest)
    add_timestamp(bundle, token)
    code, output = verify(bundle)
    assert code == 0, output
    assert "cannot verify the time-stamp" in output
    command = next(line.strip() for line in output.splitlines()
                   if line.strip().startswith("openssl ts -verify"))
    assert command == (f"openssl ts -verify -digest {digest} -in data/custody/checkpoint.tsr "
                       "-token_in -CAfile TSA_CA.pem")
    shutil.copyfile(tmp_path / "tsa" / "TSA_CA.pem", bundle / "TSA_CA.pem")
    done = subprocess.run(command.split(), cwd=bundle, capture_output=True, text=True)
    assert "Verification: OK" in done.stdout, done.stderr


def test_a_timestamp_of_something_else_or_a_mismatched_tsr_fails(
    bundle: Path, tmp_path: Path
) -> None:
    token = make_timestamp_token(tmp_path / "tsa", "11" * 32)
    add_timestamp(bundle, token, write_tsr=False)
    (bundle / CUSTODY / "checkpoint.tsr").write_bytes(token[:-1] + b"\x00")
    rebag(bundle)
    code, output = verify(bundle)
    assert code == 1
    assert f"timestamp_token time-stamps {'11' * 32}, not the SHA-256 of the signed" in output
    assert "checkpoint.tsr: is not the same token as checkpoint.json's timestamp_token" in output


def test_a_token_stripped_from_checkpoint_json_alone_is_caught(bundle: Path,
                                                               tmp_path: Path) -> None:
    digest = hashlib.sha256(signed_message(bundle)).hexdigest()
    add_timestamp(bundle, make_timestamp_token(tmp_path / "tsa", digest))
    edit_checkpoint(bundle, lambda c: c.pop("timestamp_token"))
    (bundle / CUSTODY / "checkpoint.tsr").unlink()
    rebag(bundle)
    code, output = verify(bundle)
    assert code == 1, output
    assert "its last line is not the checkpoint of checkpoint.json" in output


def test_a_missing_tsr_is_reported(bundle: Path, tmp_path: Path) -> None:
    digest = hashlib.sha256(signed_message(bundle)).hexdigest()
    add_timestamp(bundle, make_timestamp_token(tmp_path / "tsa", digest), write_tsr=False)
    code, output = verify(bundle)
    assert code == 1
    assert "checkpoint.tsr: is missing, though checkpoint.json has a token" in output


def guide_commands() -> list[str]:
    """The shell command lines of VERIFY.md's code blocks (the ones starting with a tool name)."""
    commands, inside = [], False
    for line in GUIDE.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            inside = not inside
        elif inside:
            commands.append(line)
    return commands


def run_guide_command(prefix: str, bundle: Path) -> subprocess.CompletedProcess:
    command = next(c for c in guide_commands() if c.startswith(prefix))
    return subprocess.run(["bash", "-c", command], cwd=bundle, capture_output=True,
                          text=True, timeout=60)


def test_the_manual_checks_in_verify_md_work(bundle: Path, tmp_path: Path) -> None:
    if shutil.which("openssl") is None or shutil.which("sha256sum") is None:
        pytest.skip("openssl and coreutils are needed")
    # 5.1: sha256sum -c on the manifests (the %-escaped file name is the documented exception)
    done = run_guide_command("sha256sum -c tagmanifest-sha256.txt", bundle)
    assert done.returncode == 0, done.stdout + done.stderr
    # 5.2: the leaf hash of an entry, with K = entry_index + 1
    proof = json.loads((bundle / "data/proofs/3.json").read_text(encoding="utf-8"))
    leaf_command = next(c for c in guide_commands() if c.startswith("head -n K"))
    leaf_command = leaf_command.replace("head -n K", f"head -n {proof['entry_index'] + 1}")
    done = subprocess.run(["bash", "-c", leaf_command], cwd=bundle, capture_output=True,
                          text=True)
    assert done.stdout.split()[0] == proof["leaf_hash"]
    # 5.4: the key fingerprint, the two one-liners and the openssl signature check
    done = run_guide_command("openssl pkey -pubin", bundle)
    checkpoint = json.loads((bundle / CUSTODY / "checkpoint.json").read_text(encoding="utf-8"))
    assert done.stdout.split()[0] == checkpoint["public_key_sha256"]
    for prefix in ('python3 -c "import json,sys', 'python3 -c "import base64'):
        assert run_guide_command(prefix, bundle).returncode == 0
    assert (bundle / "message.bin").read_bytes() == signed_message(bundle)
    done = run_guide_command("openssl pkeyutl -verify", bundle)
    if "rawin" in done.stderr and done.returncode != 0:
        pytest.skip("this openssl has no -rawin (OpenSSL 3.0 or later needed)")
    assert "Signature Verified Successfully" in done.stdout, done.stdout + done.stderr
    corrupt_signature(bundle)
    run_guide_command('python3 -c "import base64', bundle)
    done = run_guide_command("openssl pkeyutl -verify", bundle)
    assert "Signature Verified Successfully" not in done.stdout
    # 5.6: the time-stamp token, with -data and with -digest
    digest = hashlib.sha256(signed_message(bundle)).hexdigest()
    add_timestamp(bundle, make_timestamp_token(tmp_path / "tsa", digest))
    shutil.copyfile(tmp_path / "tsa" / "TSA_CA.pem", bundle / "TSA_CA.pem")
    done = run_guide_command("openssl ts -verify -data", bundle)
    assert "Verification: OK" in done.stdout, done.stdout + done.stderr
    digest_command = next(c for c in guide_commands() if c.startswith("openssl ts -verify -dig"))
    digest_command = digest_command.replace("<the 64 hex digits printed above>", digest)
    done = subprocess.run(["bash", "-c", digest_command], cwd=bundle, capture_output=True,
                          text=True)
    assert "Verification: OK" in done.stdout, done.stdout + done.stderr
    done = run_guide_command("openssl ts -reply -in", bundle)
    assert "Time stamp:" in done.stdout
