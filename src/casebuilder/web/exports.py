"""What leaves the case through the web interface: a stored file downloaded, a report or the
case file made, a court bundle written, each an entry in the custody log with the user as
actor (an ``export``, the report's own entry, the bundle's ``bundle`` entry).

Place in the flow: a front end beside web/app.py (routes and permissions). Reports and
bundles are made by the library as on the command line (reporting/casefile, reporting/bundle);
only roles cleared for restricted material may make them (access.toml), because both hold
everything the case holds.
"""

from __future__ import annotations

import shutil
import tempfile
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import FileResponse, RedirectResponse, Response

from casebuilder.analysis.patterns.records import Selection
from casebuilder.errors import CasebuilderError
from casebuilder.preservation.accounts import SignedIn
from casebuilder.preservation.items import first_names, item_ref
from casebuilder.reporting.bundle import write_bundle
from casebuilder.reporting.casefile.making import (
    Drawers,
    ReportRequest,
    make_report,
    store_report,
)
from casebuilder.reporting.charts import SvgCharts
from casebuilder.reporting.maps import SvgMaps
from casebuilder.web.params import day_of

if TYPE_CHECKING:
    from casebuilder.web.app import WebApp

#: A download is never shown by the browser, whatever the file holds.
DOWNLOAD_HEADERS = {"content-security-policy": "default-src 'none'; sandbox",
                    "x-frame-options": "DENY"}


class ExportRefused(CasebuilderError):
    """A report or bundle asked for without saying for whom or why."""


def _asked(web: WebApp, what: str, reason: str) -> None:
    """Log who asked for a report or bundle and why, before it is made (its own entry
    follows): a court may ask why an exhibit exists."""
    if not reason.strip():
        raise ExportRefused(f"a reason is required: say for whom or why the {what} is made")
    with web.case.transaction() as tx:
        tx.record("export", [], {"what": f"web: {what} asked for", "reason": reason})


class Exports:
    """The export routes of one WebApp."""

    def __init__(self, web: WebApp) -> None:
        self.web = web

    async def page(self, request: Request, user: SignedIn) -> Response:
        return self.web.page("exports.html", user=user)

    async def download(self, request: Request, user: SignedIn) -> Response:
        item_id = int(request.path_params["item_id"])

        def work() -> tuple[bytes, str]:
            item = self.web.evidence.item_for(user, item_id)
            with self.web.case.session() as session:
                name = first_names(session, [item_id]).get(item_id) or f"item-{item_id}"
            data = self.web.evidence.bytes_of(item)
            with self.web.case.transaction() as tx:
                tx.record("export", [item_ref(item)], {"what": "web: file download",
                                                       "bytes": len(data)})
            self.web.case.checkpoint()
            return data, name

        data, name = await self.web.run(work, actor=user.user)
        return Response(data, media_type="application/octet-stream", headers={
            **DOWNLOAD_HEADERS,
            "content-disposition": f"attachment; filename*=UTF-8''{quote(name, safe='')}"})

    async def report(self, request: Request, user: SignedIn) -> Response:
        form = await request.form()
        kind = str(form.get("kind") or "case")
        fmt = str(form.get("format") or "pdf")
        made_request = ReportRequest(kind, fmt, str(form.get("incident") or "") or None,
                                     Selection(since=day_of(form.get("since")),
                                               until=day_of(form.get("until")),
                                               region=str(form.get("region") or "") or None))

        reason = str(form.get("reason") or "")

        def work() -> int:
            made_request.check()
            _asked(self.web, f"{kind} report", reason)
            made = make_report(self.web.case, made_request, Drawers(SvgMaps(), SvgCharts()))
            return store_report(self.web.case, made, f"{kind}-report.{fmt}")

        item_id = await self.web.run(work, actor=user.user)
        return RedirectResponse(f"/items/{item_id}?done=report", status_code=303)

    async def bundle(self, request: Request, user: SignedIn) -> Response:
        reason = str((await request.form()).get("reason") or "")
        folder = Path(tempfile.mkdtemp(prefix="casebuilder-bundle-"))
        out = folder / f"bundle-{date.today().isoformat()}.zip"

        def work() -> None:
            _asked(self.web, "court bundle", reason)
            write_bundle(self.web.case, out)

        try:
            await self.web.run(work, actor=user.user)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        return FileResponse(out, media_type="application/zip", filename=out.name,
                            headers=DOWNLOAD_HEADERS,
                            background=BackgroundTask(shutil.rmtree, folder, True))
