"""Ingest end to end: preservation, sidecars, duplicates, children, and hostile input."""

from __future__ import annotations

import io
import json
import os
import zipfile
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlalchemy import select

from casebuilder.intake.ingest import ingest
from casebuilder.preservation.verify import verify_case
from casebuilder.store.schema import Derivation, IntakeFailure, Item, Origin


def items(case):
    with case.session() as s:
        return list(s.execute(select(Item).order_by(Item.id)).scalars())


def entries(case):
    return [json.loads(line) for line in case.paths.log.read_text().splitlines()]


def test_dev_reports_are_preserved_bit_for_bit_with_sidecars(case, dev_reports):
    report = ingest(case, [dev_reports])
    files = sorted(p for p in dev_reports.iterdir() if p.is_file())
    assert not [o for o in report.outcomes if o.status == "failed"]
    originals = [i for i in items(case) if i.kind == "original"]
    assert len(originals) == len(files)
    for path in files:
        import hashlib

        sha = hashlib.sha256(path.read_bytes()).hexdigest()
        stored = case.objects.path_for(sha)
        assert stored.read_bytes() == path.read_bytes()
        assert not os.stat(stored).st_mode & 0o222, "stored originals must be read-only"
    with case.session() as s:
        txt = s.execute(
            select(Origin).where(Origin.name == "2022-04-08-kramatorsk-1.txt")
        ).scalar_one()
        assert txt.collection["outlet"] == "Ukraine Gate"
        assert txt.collection["published"] == "2022-04-08T09:40:00+03:00"
        sidecar = s.get(Item, txt.sidecar_item_id)
        assert sidecar.format == "collection-metadata"
        html = s.execute(select(Item).where(Item.format == "html")).scalar_one()
        assert html.item_metadata["published"].startswith("2022-04-08T21:05")
        assert html.item_metadata["site_name"] == "Brattleboro Reformer"
        text_item = s.get(Item, html.text_item_id)
        assert text_item.kind == "derived"
        text = case.objects.path_for(text_item.sha256).read_text()
        assert "Tochka-U" in text and "Subscribe" not in text
        derivation = s.execute(
            select(Derivation).where(Derivation.derived_item_id == text_item.id)
        ).scalar_one()
        assert derivation.source_item_id == html.id and derivation.tool
    assert verify_case(case).ok
    actions = [e["action"] for e in entries(case)]
    assert actions.count("ingest") == len(files)
    assert "derive" in actions and "parse" in actions


def test_same_content_again_is_only_a_new_origin(case, tmp_path):
    a = tmp_path / "a.txt"
    a.write_text("Shelling hit the market at 10:00.\n")
    b = tmp_path / "copy of a.txt"
    b.write_bytes(a.read_bytes())
    ingest(case, [a])
    before = len(items(case))
    report = ingest(case, [b])
    assert len(items(case)) == before
    assert [o.status for o in report.outcomes] == ["duplicate"]
    last_ingest = [e for e in entries(case) if e["action"] == "ingest"][-1]
    assert last_ingest["details"]["already_held"] is True
    assert last_ingest["details"]["origin"]["name"] == "copy of a.txt"
    with case.session() as s:
        assert s.query(Origin).count() == 2


def test_email_attachments_and_zip_members_become_child_items(case, tmp_path):
    msg = EmailMessage()
    msg["From"] = "witness@example.org"
    msg["To"] = "intake@example.org"
    msg["Subject"] = "Photos from the station"
    msg["Date"] = "Fri, 08 Apr 2022 12:00:00 +0300"
    msg.set_content("Two files attached.")
    msg.add_attachment(
        b"statement text\n", maintype="text", subtype="plain", filename="statement.txt"
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr("inner/note.txt", "a note inside a zip inside an e-mail\n")
    msg.add_attachment(
        buffer.getvalue(), maintype="application", subtype="zip", filename="bundle.zip"
    )
    eml = tmp_path / "message.eml"
    eml.write_bytes(bytes(msg))
    report = ingest(case, [eml])
    relations = sorted(o.relation for o in report.new)
    assert relations == ["archive-member", "attachment", "attachment", "file"]
    with case.session() as s:
        member = s.execute(select(Origin).where(Origin.relation == "archive-member")).scalar_one()
        assert member.source_path == "inner/note.txt"
        parent = s.get(Item, member.parent_item_id)
        assert parent.format == "zip"
    assert verify_case(case).ok


@pytest.fixture
def hostile(tmp_path) -> Path:
    folder = tmp_path / "hostile"
    folder.mkdir()
    (folder / "empty.txt").write_bytes(b"")
    (folder / "junk.pdf").write_bytes(b"this is not a pdf at all, just words\n" * 10)
    (folder / "broken.pdf").write_bytes(b"%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R")
    from PIL import Image

    jpeg = io.BytesIO()
    Image.new("RGB", (200, 200), (200, 30, 30)).save(jpeg, "JPEG")
    (folder / "truncated.jpg").write_bytes(jpeg.getvalue()[: len(jpeg.getvalue()) // 2])
    (folder / "cp1251.txt").write_bytes("Обстріл Харкова: загинули троє людей.\n".encode("cp1251"))
    (folder / "line\nbreak.txt").write_text("a file whose name holds a newline\n")
    (folder / "Маріуполь – звіт ✓.txt").write_text("unicode name\n")
    os.mkfifo(folder / "a-pipe")
    (folder / "dangling").symlink_to(folder / "nowhere")
    return folder


def test_hostile_files_each_get_a_message_and_the_batch_goes_on(case, hostile):
    good = hostile / "good.txt"
    good.write_text("Two rockets hit the railway station on Friday morning.\n")
    report = ingest(case, [hostile])
    by_name = {o.path.rsplit("/", 1)[-1]: o for o in report.outcomes}
    assert by_name["good.txt"].status == "new" and by_name["good.txt"].parse_status == "ok"
    assert "empty" in by_name["empty.txt"].reason
    assert "not a PDF" in by_name["junk.pdf"].reason
    assert by_name["broken.pdf"].parse_status == "failed"
    assert by_name["truncated.jpg"].parse_status == "failed"
    assert "truncated" in by_name["truncated.jpg"].reason.lower()
    assert by_name["cp1251.txt"].parse_status in {"ok", "partial"}
    assert any("cp1251" in w or "windows-1251" in w for w in by_name["cp1251.txt"].warnings)
    assert by_name["line\\nbreak.txt"].status == "new"
    assert by_name["Маріуполь – звіт ✓.txt"].status == "new"
    assert by_name["a-pipe"].status == "failed"
    assert "not a regular file" in by_name["a-pipe"].reason
    assert by_name["dangling"].status == "failed" and "symbolic link" in by_name["dangling"].reason
    # Every readable file is preserved, failures included, and the case still verifies.
    assert {o.path.rsplit("/", 1)[-1] for o in report.failures} >= {
        "empty.txt",
        "junk.pdf",
        "broken.pdf",
        "truncated.jpg",
        "a-pipe",
        "dangling",
    }
    with case.session() as s:
        junk = s.execute(select(Origin).where(Origin.name == "junk.pdf")).scalar_one()
        assert s.get(Item, junk.item_id).parse_status == "failed"
        assert s.query(IntakeFailure).count() == 2
    decoded = [i for i in items(case) if i.kind == "derived" and i.format == "text"]
    texts = [case.objects.path_for(i.sha256).read_text() for i in decoded]
    assert "Обстріл Харкова: загинули троє людей.\n" in texts
    assert verify_case(case).ok


def test_unreadable_file_is_reported_and_logged(case, tmp_path, monkeypatch):
    secret = tmp_path / "secret.txt"
    secret.write_text("x")
    import casebuilder.preservation.objects as objects

    real_open = os.open

    def deny(path, flags, *args):
        if os.fspath(path) == os.fspath(secret):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_open(path, flags, *args)

    monkeypatch.setattr(objects.os, "open", deny)
    other = tmp_path / "other.txt"
    other.write_text("still taken in")
    report = ingest(case, [secret, other])
    assert [o.status for o in report.outcomes] == ["failed", "new"]
    assert "permission denied" in report.outcomes[0].reason
    failed = [e for e in entries(case) if e["action"] == "intake-failed"]
    assert failed and failed[0]["details"]["source_path"] == str(secret)


def test_huge_sparse_file_is_refused_clearly_without_reading_it(case, tmp_path):
    sparse = tmp_path / "huge.bin"
    with open(sparse, "wb") as fh:
        fh.truncate(1 << 40)  # 1 TiB apparent, nothing allocated
    report = ingest(case, [sparse])
    (outcome,) = report.outcomes
    assert outcome.status == "failed"
    assert "larger than the case's limit" in outcome.reason and "sparse" in outcome.reason


def test_sparse_file_within_the_limit_is_kept_sparse(case, tmp_path):
    sparse = tmp_path / "holes.bin"
    with open(sparse, "wb") as fh:
        fh.write(b"start")
        fh.seek(96 * 1024 * 1024)
        fh.write(b"end")
    report = ingest(case, [sparse])
    (outcome,) = report.outcomes
    assert outcome.status == "new"
    stored = case.objects.path_for(outcome.sha256)
    assert stored.stat().st_size == sparse.stat().st_size
    assert stored.stat().st_blocks * 512 < 16 * 1024 * 1024
    assert verify_case(case).ok


def test_nothing_stored_is_touched_by_a_later_bad_batch(case, tmp_path, dev_reports):
    ingest(case, [dev_reports])
    before = {p: p.read_bytes() for p in (case.paths.objects).rglob("*") if p.is_file()}
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"PK\x03\x04" + b"\xff" * 100)
    ingest(case, [junk, tmp_path / "does-not-exist.txt"])
    for path, data in before.items():
        assert path.read_bytes() == data
    assert verify_case(case).ok


def test_the_case_home_is_never_taken_in(tmp_path):
    from casebuilder.preservation.case import init_case

    folder = tmp_path / "reports"
    folder.mkdir()
    (folder / "report.txt").write_text("Shelling hit the market.\n")
    case = init_case(folder / "casebuilder-data", environ={})
    try:
        report = ingest(case, [folder])
        names = [o.path for o in report.outcomes if o.status != "failed"]
        assert len(names) == 1 and names[0].endswith("report.txt")
        skipped = [o for o in report.outcomes if o.status == "failed"]
        assert skipped and "inside the case home" in skipped[0].reason
        assert not any("signing-key" in o.path for o in report.outcomes if o.item_id)
        direct = ingest(case, [case.paths.signing_key])
        assert direct.outcomes[0].status == "failed"
    finally:
        case.close()


def test_a_name_that_is_not_utf8_is_kept_with_its_bytes_and_the_batch_goes_on(case, tmp_path):
    folder = tmp_path / "names"
    folder.mkdir()
    raw = b"\xc7\xe2\xb3\xf2.txt"  # "Звіт" in CP1251
    with open(os.path.join(os.fsencode(folder), raw), "wb") as fh:
        fh.write(b"a report\n")
    (folder / "zz-after.txt").write_text("taken in after the odd name\n")
    report = ingest(case, [folder])
    assert [o.status for o in report.outcomes] == ["new", "new"]
    odd = [e for e in entries(case) if e["action"] == "ingest"
           and "source_path_bytes" in e["details"]["origin"]]
    assert len(odd) == 1 and odd[0]["details"]["origin"]["source_path_bytes"].endswith(raw.hex())
    assert verify_case(case).ok


@pytest.mark.parametrize("sidecar", [b'{"title": NaN}', b"[" * 100_000 + b"]" * 100_000,
                                     b'{"title": "x", "extra": Infinity}'])
def test_hostile_sidecars_are_recorded_as_unreadable(case, tmp_path, sidecar):
    (tmp_path / "r.txt").write_text("Missiles hit the station.\n")
    (tmp_path / "r.meta.json").write_bytes(sidecar)
    report = ingest(case, [tmp_path / "r.txt", tmp_path / "r.meta.json"])
    side = next(o for o in report.outcomes if o.path.endswith(".meta.json"))
    assert side.parse_status == "failed"
    assert next(o for o in report.outcomes if o.path.endswith("r.txt")).status == "new"
    assert verify_case(case).ok


def test_an_item_left_pending_by_a_stopped_run_is_read_when_it_arrives_again(case, tmp_path):
    from casebuilder.intake.ingest import Ingester

    report_file = tmp_path / "r.txt"
    report_file.write_text("Missiles hit the station.\n")
    stopped = Ingester(case, [])
    stopped._preserve(report_file, relation="file")  # stored, then the run "stops"
    assert items(case)[0].parse_status == "pending"
    ingest(case, [report_file])
    assert items(case)[0].parse_status == "ok"


def test_a_file_planted_under_a_hash_is_replaced_by_the_verified_copy(case, tmp_path):
    import hashlib

    genuine = tmp_path / "genuine.txt"
    genuine.write_text("the real statement\n")
    sha = hashlib.sha256(genuine.read_bytes()).hexdigest()
    planted = case.objects.path_for(sha)
    planted.parent.mkdir(parents=True, exist_ok=True)
    planted.write_text("a decoy\n")
    report = ingest(case, [genuine])
    assert planted.read_bytes() == genuine.read_bytes()
    assert any("replaced" in w for w in report.outcomes[0].warnings)
    first = next(e for e in entries(case) if e["action"] == "ingest")
    assert first["details"]["stored_file_replaced"] is True
    assert verify_case(case).ok


class _RunStopped(BaseException):
    """Stands for the process being killed: nothing after it runs."""


def _stop_when_reading(monkeypatch, name: str) -> None:
    """Make the next ingest stop (as if killed) when it starts reading the file ``name``."""
    from casebuilder.intake.ingest import Ingester

    real = Ingester._parse

    def parse(self, outcome, *, name: str = "", depth: int = 0):
        if name == stop_at:
            raise _RunStopped
        return real(self, outcome, name=name, depth=depth)

    stop_at = name
    monkeypatch.setattr(Ingester, "_parse", parse)


def _zip_of_three(tmp_path: Path) -> Path:
    archive = tmp_path / "three.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for name in ("a.txt", "b.txt", "c.txt"):
            zf.writestr(name, f"member {name}: shelling reported near the station\n")
    return archive


def test_members_a_stopped_run_left_unread_or_never_received_are_taken_in_again(
    case, tmp_path, monkeypatch
):
    archive = _zip_of_three(tmp_path)
    with monkeypatch.context() as patch:
        _stop_when_reading(patch, "b.txt")
        with pytest.raises(_RunStopped):
            ingest(case, [archive])
    with case.session() as s:
        state = {o.name: o.item.parse_status for o in s.execute(select(Origin)).scalars()}
    assert state == {"three.zip": "ok", "a.txt": "ok", "b.txt": "pending"}  # c.txt never came

    report = ingest(case, [archive])
    assert [o.path.rsplit(" -> ", 1)[-1] for o in report.resumed] == ["b.txt"]
    assert report.resumed[0].parse_status == "ok" and report.resumed[0].parsed
    assert [o.path.rsplit(" -> ", 1)[-1] for o in report.new] == ["c.txt"]
    with case.session() as s:
        members = s.execute(select(Origin).where(Origin.relation == "archive-member")).scalars()
        assert sorted(o.name for o in members) == ["a.txt", "b.txt", "c.txt"]  # one origin each
    assert {i.parse_status for i in items(case) if i.kind == "original"} == {"ok"}
    resumed_id = report.resumed[0].item_id
    assert set(report.parsed_item_ids) == {resumed_id, report.new[0].item_id}
    assert verify_case(case).ok

    # Nothing is left to do: the archive arriving again is only a new origin.
    again = ingest(case, [archive])
    assert [o.status for o in again.outcomes] == ["duplicate"]
    assert again.parsed_item_ids == []
    assert verify_case(case).ok


def test_an_attachment_a_stopped_run_left_unread_is_read_when_the_message_arrives_again(
    case, tmp_path, monkeypatch
):
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "a@example.org", "b@example.org", "Statement"
    msg.set_content("One file attached.")
    msg.add_attachment(b"statement text\n", maintype="text", subtype="plain",
                       filename="statement.txt")
    eml = tmp_path / "message.eml"
    eml.write_bytes(bytes(msg))
    with monkeypatch.context() as patch:
        _stop_when_reading(patch, "statement.txt")
        with pytest.raises(_RunStopped):
            ingest(case, [eml])
    report = ingest(case, [eml])
    assert [(o.relation, o.parse_status) for o in report.resumed] == [("attachment", "ok")]
    assert {i.parse_status for i in items(case) if i.kind == "original"} == {"ok"}
    assert verify_case(case).ok
