"""A case for the web tests: the development reports (copied from the run's one ingested
case), one hostile text, two restricted witness statements, and an account for every role."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from casebuilder.preservation.access import shipped_access
from casebuilder.preservation.accounts import add_user
from casebuilder.preservation.case import Case, open_case
from casebuilder.web.app import make_app
from casebuilder.web.guard import LoginThrottle

PASSWORD = "a long test password"
#: Markup that must never run: in a file's name and in its text.
HOSTILE_NAME = "<img src=x onerror=alert(1)>.txt"
HOSTILE_TEXT = ("Shelling of <script>alert('text')</script> the town on 3 March 2022 killed two "
                "civilians, police said. <svg onload=alert(2)><script>alert(3)</script></svg> "
                "<a href=\"javascript:alert(4)\">link</a> <b onmouseover=alert(5)>bold</b>\n")
#: Two witness statements, restricted in the case: one about the Kramatorsk station strike
#: the development reports describe (so that incident rests partly on it), one the only report
#: of its attack. Each holds words no other document has, which no viewer may ever see.
STATEMENTS = {
    "witness-statement-W17.txt": (
        "Statement of witness W17, taken on 9 April 2022. The witness, Hanna Zirkovska-Mell, "
        "said a missile struck the railway station in Kramatorsk on 8 April 2022 and killed "
        "63 civilians waiting for the evacuation trains.\n"),
    "witness-statement-W18.txt": (
        "Statement of witness W18, taken on 6 March 2022. The witness, Petro Zalizniak-Mell, "
        "said shelling of Irpin on 5 March 2022 killed three civilians near the bridge.\n"),
}
#: A captured page that tries everything a page can to run or load something.
HOSTILE_CAPTURE = (
    "<html><head><script>window.parent.alert('capture')</script>"
    "<style>body{background:url(https://tracker.invalid/x.png)}</style></head><body>"
    "<h1>Report from the market</h1><p onclick=\"alert('click')\">Shelling hit the market.</p>"
    "<svg><script>alert('svg')</script></svg><img src=x onerror=\"alert('img')\">"
    "<a href=\"javascript:alert('link')\">more</a><iframe src=\"https://tracker.invalid\">"
    "</iframe><form action=\"https://tracker.invalid\"><input name=q></form></body></html>")


def tiny_pdf(pages: int) -> bytes:
    """A PDF of ``pages`` pages, each saying its number, written out by hand."""
    objects = ["<< /Type /Catalog /Pages 2 0 R >>",
               "<< /Type /Pages /Kids [" + " ".join(f"{3 + 2 * n} 0 R" for n in range(pages))
               + f"] /Count {pages} >>"]
    font = 3 + 2 * pages
    for n in range(pages):
        objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Contents "
                       f"{4 + 2 * n} 0 R /Resources << /Font << /F1 {font} 0 R >> >> >>")
        stream = f"BT /F1 24 Tf 40 100 Td (Page {n + 1}) Tj ET"
        objects.append(f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream")
    objects.append("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out, offsets = b"%PDF-1.4\n", []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode()
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += (f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n"
            "%%EOF\n").encode()
    return out


def tiny_video() -> bytes:
    """Five frames of MPEG-4 video, made by PyAV: a dark shape on a light ground."""
    import io

    import av
    from PIL import Image, ImageDraw

    out = io.BytesIO()
    with av.open(out, "w", format="mp4") as container:
        stream = container.add_stream("mpeg4", rate=5)
        stream.width, stream.height, stream.pix_fmt = 240, 160, "yuv420p"
        for n in range(5):
            frame = Image.new("RGB", (240, 160), "white")
            ImageDraw.Draw(frame).rectangle((40 + 10 * n, 40, 140 + 10 * n, 120), fill="black")
            for packet in stream.encode(av.VideoFrame.from_image(frame)):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    return out.getvalue()


#: Files of each kind the evidence viewer shows, by name.
EXHIBITS = {"market-capture.html": HOSTILE_CAPTURE.encode(), "two-pages.pdf": tiny_pdf(2)}
PICTURE = "crater.png"
VIDEO = "street.mp4"

#: Words of the statements that nothing else in the case holds.
RESTRICTED_WORDS = ("Zirkovska", "Zalizniak", "witness-statement-W1", "Statement of witness")


@pytest.fixture(scope="module")
def web_home(dev_case_home: Path, tmp_path_factory: pytest.TempPathFactory,
             extraction_tools: object) -> Path:
    from casebuilder.extraction.run import extract_items
    from casebuilder.intake.ingest import ingest
    from casebuilder.preservation.restriction import restrict_item
    from casebuilder.store.schema import Origin

    home = tmp_path_factory.mktemp("web") / "home"
    shutil.copytree(dev_case_home, home)
    hostile = home.parent / "incoming"
    hostile.mkdir()
    (hostile / HOSTILE_NAME).write_text(HOSTILE_TEXT, encoding="utf-8")
    for name, data in EXHIBITS.items():
        (hostile / name).write_bytes(data)
    from PIL import Image, ImageDraw

    picture = Image.new("RGB", (240, 160), "white")
    ImageDraw.Draw(picture).ellipse((60, 30, 180, 130), fill="darkred")
    picture.save(hostile / PICTURE)
    (hostile / VIDEO).write_bytes(tiny_video())
    statements = home.parent / "statements"
    statements.mkdir()
    for name, text in STATEMENTS.items():
        (statements / name).write_text(text, encoding="utf-8")
    case = open_case(home, environ={})
    try:
        ingest(case, [hostile, statements])
        extract_items(case, extraction_tools)  # type: ignore[arg-type]
        with case.session() as session:
            ids = {o.name: o.item_id for o in session.query(Origin)
                   if o.name in STATEMENTS}
        for name in STATEMENTS:
            restrict_item(case, ids[name], "witness_statement", "protects the witness")
        for role in shipped_access().roles:
            add_user(case, role, role, PASSWORD)
    finally:
        case.close()
    return home


@pytest.fixture
def own_case(web_home: Path, tmp_path: Path) -> Iterator[Case]:
    """A copy of the web case for a test that changes it."""
    shutil.copytree(web_home, tmp_path / "home")
    case = open_case(tmp_path / "home", environ={})
    try:
        yield case
    finally:
        case.close()


@pytest.fixture
def web_case(web_home: Path) -> Iterator[Case]:
    case = open_case(web_home, environ={})
    try:
        yield case
    finally:
        case.close()


def client_for(case: Case, user: str | None, password: str = PASSWORD,
               throttle: LoginThrottle | None = None) -> TestClient:
    """A browser-like client (HTTPS, so the Secure cookie goes back), signed in as ``user``."""
    client = TestClient(make_app(case, throttle=throttle), base_url="https://testserver")
    if user is not None:
        assert sign_in(client, user, password).status_code == 303
    return client


def sign_in(client: TestClient, user: str, password: str = PASSWORD):  # type: ignore[no-untyped-def]
    page = client.get("/login")
    csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert csrf, page.text
    return client.post("/login", data={"name": user, "password": password,
                                       "csrf": csrf.group(1)}, follow_redirects=False)


def csrf_of(client: TestClient) -> str:
    page = client.get("/incidents")
    found = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert found
    return found.group(1)
