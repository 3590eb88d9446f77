"""A court bundle must hold exactly the items its own log entry lists, as they were received.

Manifests and Payload-Oxum are not signed: a forger who removes an item (its file, item.json and
proof) or plants one, then rewrites them, gets a bag that ``bagit.py --validate`` accepts. The
bundle's own ``bundle`` entry, covered by the signed checkpoint, lists the items it holds with
their hashes, so ``verify_bundle.py`` must catch both; and every origin in item.json must be the
receipt entry it names. Each test tampers with a real bundle, rewrites the bag as a forger
would, checks that verify_bundle.py fails naming the problem (while bagit.py passes where the
tampering is only visible to the custody checks), then undoes the tampering and checks that
both pass again.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from court_bundles import assert_caught, assert_passes, bagit_ok, bundle_entry, rebag, verify

from casebuilder.intake.ingest import ingest
from casebuilder.preservation.case import init_case
from casebuilder.preservation.merkle import MerkleTree, leaf_hash
from casebuilder.reporting.bundle import write_bundle


@pytest.fixture(scope="module")
def bundles(tmp_path_factory, dev_reports) -> dict[str, Path]:
    """A bundle of every item, and one of items 2 and 3 only, of the development reports."""
    root = tmp_path_factory.mktemp("bundles")
    case = init_case(root / "home", name="bundle contents", environ={})
    try:
        ingest(case, [dev_reports])
        write_bundle(case, root / "all")
        write_bundle(case, root / "two", item_ids=[2, 3])
    finally:
        case.close()
    return {"all": root / "all", "two": root / "two"}


@pytest.fixture
def full(bundles, tmp_path) -> Path:
    return Path(shutil.copytree(bundles["all"], tmp_path / "all"))


@pytest.fixture
def two(bundles, tmp_path) -> Path:
    return Path(shutil.copytree(bundles["two"], tmp_path / "two"))


def remove_item(bag: Path, item_id: int, keep: Path) -> Callable[[], None]:
    """Remove an item's directory and proof (kept aside in ``keep``); returns the undo."""
    shutil.move(bag / f"data/items/{item_id}", keep / "item")
    shutil.move(bag / f"data/proofs/{item_id}.json", keep / "proof.json")
    rebag(bag)

    def undo() -> None:
        shutil.move(keep / "item", bag / f"data/items/{item_id}")
        shutil.move(keep / "proof.json", bag / f"data/proofs/{item_id}.json")
        rebag(bag)

    return undo


def test_an_untouched_bundle_passes_every_check(full, two):
    for bag in (full, two):
        code, output = verify(bag)
        assert code == 0, output
        assert "contents" in output and "histories" in output


def test_an_item_removed_from_the_bundle(full, tmp_path):
    index, entry = bundle_entry(full)
    assert any(ref["id"] == 4 for ref in entry["items"])
    undo = remove_item(full, 4, tmp_path)
    assert_caught(full, "[contents] data/items/4/: is missing",
                  f"(entry {index}), the entry that made this bundle, lists item 4")
    undo()
    assert_passes(full)


def test_every_item_but_one_removed(full, tmp_path):
    """Leaving only one item: still named, item by item."""
    undos = []
    for number, item in enumerate(sorted(p.name for p in (full / "data/items").iterdir())[1:]):
        keep = tmp_path / str(number)
        keep.mkdir()
        undos.append(remove_item(full, int(item), keep))
    output = assert_caught(full, "[contents] data/items/3/: is missing")
    assert output.count("[contents]") == len(undos)
    for undo in reversed(undos):
        undo()
    assert_passes(full)


def test_an_item_planted_in_a_bundle_after_it_was_made(full, two):
    """Item 5 is in the case's log (so a valid proof can be computed from the bundle's own
    log), but it was not chosen for this bundle."""
    lines = (two / "data/custody/log.jsonl").read_bytes().splitlines()
    proof = json.loads((full / "data/proofs/5.json").read_text())
    tree = MerkleTree([leaf_hash(line) for line in lines])
    proof.update(tree_size=tree.size, root=tree.root().hex(), proof=[
        h.hex() for h in tree.inclusion_proof(proof["entry_index"], tree.size)])
    shutil.copytree(full / "data/items/5", two / "data/items/5")
    (two / "data/proofs/5.json").write_text(json.dumps(proof, indent=2) + "\n")
    rebag(two)
    assert_caught(two, "[contents] data/items/5/: item 5 is not listed in",
                  "it was added to the bundle afterwards")
    shutil.rmtree(two / "data/items/5")
    (two / "data/proofs/5.json").unlink()
    rebag(two)
    assert_passes(two)


def test_hashes_in_the_bundle_entry_must_match_item_json(full):
    """A stored file swapped for another, with item.json, proof and manifests made to match,
    is caught by the proof; the bundle entry's hashes name the item as well."""
    path = full / "data/items/2/item.json"
    original = path.read_bytes()
    item = json.loads(original)
    item["size"] += 1
    path.write_text(json.dumps(item, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    rebag(full)
    assert_caught(full, "[contents] data/items/2/item.json: size is",
                  "the entry that made this bundle, lists item 2 with")
    path.write_bytes(original)
    rebag(full)
    assert_passes(full)


def edit_item_json(bag: Path, item_id: int, change: Callable[[dict], None]) -> Callable[[], None]:
    path = bag / f"data/items/{item_id}/item.json"
    original = path.read_bytes()
    item = json.loads(original)
    change(item)
    path.write_text(json.dumps(item, indent=2, ensure_ascii=False, sort_keys=True) + "\n",
                    encoding="utf-8")
    rebag(bag)

    def undo() -> None:
        path.write_bytes(original)
        rebag(bag)

    return undo


def set_origin(field: str, value: object) -> Callable[[dict], None]:
    return lambda item: item["origins"][0].update({field: value})


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (set_origin("received_at", "2022-03-01T09:00:00.000000Z"),
         "origins[0]: received_at is '2022-03-01T09:00:00.000000Z', but log.jsonl line"),
        (set_origin("actor", "a.colleague"), "origins[0]: actor is 'a.colleague', but"),
        (set_origin("name", "other.txt"), "origins[0]: name is 'other.txt', but"),
        (set_origin("path", "/elsewhere/other.txt"), "origins[0]: path is '/elsewhere/other."),
        (set_origin("relation", "attachment"), "origins[0]: relation is 'attachment', but"),
        (set_origin("sidecar_item", 9), "origins[0]: sidecar_item is 9, but"),
        (set_origin("parent_item", 1), "origins[0]: parent_item is 1, but"),
        (set_origin("source_mtime", "2020-01-01T00:00:00.000000Z"), "origins[0]: source_mtime"),
        (set_origin("entry", 0), "origins[0]: names log.jsonl line 1 (entry 0), which is not"),
        (set_origin("entry", 10**6), "origins[0]: entry 1000000 is not an entry of log.jsonl"),
        (lambda item: item["origins"][0]["collection"].update(published="2020-01-01"),
         "origins[0]: collection (its digest) is"),
        (lambda item: item.update(origins=[]),
         "records a receipt of this item that is missing from its origins"),
        (lambda item: item.pop("origins"), "'origins' is missing or not a list"),
        (lambda item: item.update(role="derived"), "role is 'derived', but"),
        (lambda item: item["metadata"].update(title="Another title"),
         "[parse] data/items/2/item.json: metadata (its digest) is"),
        (lambda item: item.update(format="pdf"), "[parse] data/items/2/item.json: format is"),
        (lambda item: item["parse"].update(status="failed"), "parse.status is 'failed'"),
    ],
)
def test_item_json_differs_from_the_entries_it_names(full, change, message):
    undo = edit_item_json(full, 2, change)
    assert_caught(full, "data/items/2/item.json", message)
    undo()
    assert_passes(full)


def test_derived_from_differs_from_its_derive_entry(full):
    derived = next(p.parent.name for p in (full / "data/items").glob("*/item.json")
                   if json.loads(p.read_text())["derived_from"] is not None)
    undo = edit_item_json(full, int(derived),
                          lambda item: item["derived_from"].update(tool_version="0.0.1"))
    assert_caught(full, f"data/items/{derived}/item.json",
                  "derived_from.tool_version is '0.0.1', but")
    undo()
    assert_passes(full)


def test_the_manual_contents_check_in_verify_md(full, tmp_path):
    """Section 5.7 of VERIFY.md: the one-liner comparing data/items/ with the bundle entry."""
    guide = (full / "VERIFY.md").read_text(encoding="utf-8")
    command = next(line for line in guide.splitlines()
                   if line.startswith('python3 -c "import json,os;'))

    def run() -> str:
        done = subprocess.run(["bash", "-c", command], cwd=full, capture_output=True, text=True,
                              check=False, env={"PATH": "/usr/bin:/bin"})
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert "differences: none" in run()
    sha256 = json.loads((full / "data/items/4/item.json").read_text())["sha256"]
    undo = remove_item(full, 4, tmp_path)
    assert f"('4', '{sha256}')" in run()
    undo()
    assert "differences: none" in run()


def test_a_bundle_made_while_another_was_being_written_passes(tmp_path, dev_reports):
    """write_bundle records its entry before it takes the lock to write the bag, so another
    bundle can be made in between. Bundle A carries the log up to the first checkpoint that
    signs its entry: its own checkpoint, made before B's, or B's when B's came first (then B's
    entry is in A's log after A's own, and the checker must use the entry bag-info.txt names,
    not the last 'bundle' entry)."""
    from casebuilder.preservation.custody import case_lock
    from casebuilder.preservation.sealing import seal_pending
    from casebuilder.reporting.bundle import record_bundle_entry, write_planned_bundle

    case = init_case(tmp_path / "home", name="two bundles at once", environ={})
    try:
        ingest(case, [dev_reports])
        # Every SHA-512 recorded now, so that no bundle below signs a checkpoint of its own for
        # them before its entry (which would end C's log before D's entry).
        seal_pending(case)
        # A's entry is recorded and signed, then B is made from start to end, then A's bag.
        plan_a = record_bundle_entry(case, tmp_path / "a", item_ids=[1])
        case.checkpoint()
        write_bundle(case, tmp_path / "b", item_ids=[2])
        # C's entry is recorded but not yet signed when D is made: D's checkpoint signs C's.
        plan_c = record_bundle_entry(case, tmp_path / "c", item_ids=[3])
        write_bundle(case, tmp_path / "d", item_ids=[4])
        case.checkpoint()
        with case_lock(case.paths.lock):
            write_planned_bundle(case, plan_a)
            write_planned_bundle(case, plan_c)
    finally:
        case.close()
    a, b, c, d = (tmp_path / name for name in "abcd")
    assert bundle_entry(a)[0] == plan_a.entry  # A carries its own checkpoint, not B's
    assert bundle_entry(c)[0] > plan_c.entry  # D's entry is the last 'bundle' entry of C's log
    assert (c / "data/custody/checkpoint.json").read_bytes() == \
        (d / "data/custody/checkpoint.json").read_bytes()
    assert f"Casebuilder-Bundle-Entry: {plan_c.entry}\n" in (c / "bag-info.txt").read_text()
    for bag in (a, b, c, d):
        assert_passes(bag)


def set_bundle_entry(bag: Path, value: str | None) -> None:
    """Rewrite (or with None, remove) Casebuilder-Bundle-Entry, and the tag manifests to
    match, so only the custody checks can catch it."""
    path = bag / "bag-info.txt"
    lines = [line for line in path.read_text(encoding="utf-8").splitlines()
             if not line.startswith("Casebuilder-Bundle-Entry:")]
    if value is not None:
        lines.append(f"Casebuilder-Bundle-Entry: {value}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    rebag(bag)


def test_bag_info_naming_another_bundles_entry_is_caught(full, two):
    """'two' (items 2 and 3) was made after 'all', so its log holds the entry of 'all' too.
    The entry of 'all' lists other items and files, and 'two' carries the checkpoints up to its
    own, so more than one of them signs the entry of 'all'."""
    own, _ = bundle_entry(two)
    other, _ = bundle_entry(full)
    assert other < own
    set_bundle_entry(two, str(other))
    assert_caught(two, "[contents] data/items/1/: is missing",
                  f"[files] data/items/1/item.json: is missing: log.jsonl line {other + 1} "
                  f"(entry {other}), the entry that made this bundle, lists it",
                  "bag-info.txt names another (earlier) bundle's entry")
    set_bundle_entry(two, str(own))
    assert_passes(two)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (None, "bag-info.txt: must have one Casebuilder-Bundle-Entry (the log entry that made "
               "this bundle), has 0"),
        ("1", "names log.jsonl line 2 (entry 1), whose action is 'ingest': not a 'bundle' entry"),
        ("100000", "names entry 100000, but the checkpoint covers only entries 0 to"),
        ("seven", "Casebuilder-Bundle-Entry: is 'seven', not a log entry number"),
    ],
)
def test_a_missing_or_wrong_bundle_entry_in_bag_info_fails(two, value, message):
    own, _ = bundle_entry(two)
    set_bundle_entry(two, value)
    output = assert_caught(two, message)
    assert "no 'bundle' entry of this bundle to check against" in output
    set_bundle_entry(two, str(own))
    assert_passes(two)


def test_a_renamed_bundle_folder_passes(two, tmp_path):
    """A clerk renames an exhibit: the folder name is not evidence, and is not checked."""
    renamed = two.rename(tmp_path / "exhibit-7")
    code, output = verify(renamed)
    assert code == 0, output
    assert "this bundle was written as 'two'" in output
    assert bagit_ok(renamed)
