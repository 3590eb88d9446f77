"""The evidence browser of the web interface: the items of the case, each with its record
(digests, origins, what was made from it) and a viewer for what it is: text, an HTML capture
made harmless, a PDF's pages as images, a picture blurred until a person gives a reason to see
it. Restricted items (preservation/restriction.py) answer as if the case did not hold them for
a role not cleared for them.

Place in the flow: a front end, beside web/app.py, which owns the routes and their
permissions; renditions come from web/renditions.py, the items from the store. Every showing
is a ``view`` entry in the custody log with the user as actor, the reason included where one
was given.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from casebuilder.errors import CasebuilderError, NotFound
from casebuilder.preservation.accounts import SignedIn
from casebuilder.preservation.items import first_names, item_ref
from casebuilder.preservation.reads import log_view, text_of
from casebuilder.preservation.restriction import current_restrictions
from casebuilder.preservation.text_search import Search, search_texts
from casebuilder.store.schema import Derivation, Item, Origin
from casebuilder.web import renditions
from casebuilder.web.guard import permitted
from casebuilder.web.params import number_of

if TYPE_CHECKING:
    from casebuilder.web.app import WebApp

T = TypeVar("T")
PAGE_SIZE = 200
#: A captured page shown inside the item's page: no script, no style, nothing loaded, framed
#: only by this server's own pages (the iframe adds its own sandbox).
CAPTURE_HEADERS = {
    "content-security-policy": "default-src 'none'; frame-ancestors 'self'; sandbox",
    "x-frame-options": "SAMEORIGIN",
}


class RevealRefused(CasebuilderError):
    """Graphic media asked for without a reason."""


@dataclass(frozen=True)
class Shown:
    """One item as its page shows it."""

    item: Item
    names: list[str]
    origins: list[dict[str, Any]]
    made: list[dict[str, Any]]  # derived items: kind, tool, id
    viewer: str  # "text" | "capture" | "pdf" | "picture" | "video" | "none"
    pages: int
    has_text: bool
    restriction: str | None  # the kind it is restricted as (cleared readers only)


def viewer_for(item: Item) -> str:
    media = (item.media_type or "").lower()
    if media.startswith("text/html") or media == "application/xhtml+xml":
        return "capture"
    if media == "application/pdf":
        return "pdf"
    if media.startswith("image/") and media != "image/svg+xml":
        return "picture"
    if media.startswith("video/"):
        return "video"
    if media.startswith("text/"):
        return "text"
    return "none"


class Evidence:
    """The evidence routes of one WebApp (which gives the case, the lock and the pages)."""

    def __init__(self, web: WebApp) -> None:
        self.web = web
        # Who has given a reason to see which picture unblurred, for the server's life.
        self._revealed: set[tuple[str, int]] = set()
        self._pages: dict[tuple[str, int], bytes] = {}  # PDF page images made, by sha256

    def item_for(self, user: SignedIn, item_id: int,
                 withheld: frozenset[int] | None = None) -> Item:
        """The item, or NotFound for one the case does not hold or this user may not see
        (``withheld``: what the caller already worked out is withheld from this user)."""
        with self.web.case.session() as session:
            item = session.get(Item, item_id)
            if item is not None:
                session.expunge(item)
        if withheld is None:
            withheld = self.web.withheld(user)
        if item is None or item_id in withheld:
            raise NotFound(f"no item {item_id} in this case")
        return item

    def bytes_of(self, item: Item) -> bytes:
        with self.web.case.storage.open(item.sha256) as fh:
            return fh.read()

    async def items(self, request: Request, user: SignedIn) -> Response:
        query = request.query_params
        name = (query.get("name") or "").strip().lower()
        media = (query.get("media") or "").strip().lower()
        page = max(1, number_of(query.get("page"), 1))

        def work() -> tuple[list[dict[str, Any]], int]:
            withheld = self.web.withheld(user)
            with self.web.case.session() as session:
                names = first_names(session)
                restricted = ({i: r.kind for i, r in current_restrictions(session).items()}
                              if permitted(user.role, "view_restricted") else {})
                rows = [{"id": i.id, "name": names.get(i.id) or "", "size": i.size,
                         "media_type": i.media_type or "", "format": i.format or "",
                         "sha256": i.sha256, "parse_status": i.parse_status,
                         "restricted": restricted.get(i.id)}
                        for i in session.scalars(select(Item).where(Item.kind == "original")
                                                 .order_by(Item.id))
                        if i.id not in withheld]
            rows = [r for r in rows if (not name or name in str(r["name"]).lower())
                    and (not media or media in str(r["media_type"]).lower())]
            shown = rows[(page - 1) * PAGE_SIZE: page * PAGE_SIZE]
            log_view(self.web.case, "web: item list",
                     details={"filters": {k: v for k, v in query.items() if v},
                              "matching": len(rows), "shown": [r["id"] for r in shown]})
            return shown, len(rows)

        shown, matching = await self.web.run(work, actor=user.user)
        return self.web.page("items.html", user=user, rows=shown, matching=matching,
                             query=query, page=page,
                             pages=max(1, math.ceil(matching / PAGE_SIZE)))

    async def item(self, request: Request, user: SignedIn) -> Response:
        item_id = int(request.path_params["item_id"])

        def work() -> Shown:
            withheld = self.web.withheld(user)
            item = self.item_for(user, item_id, withheld)
            with self.web.case.session() as session:
                origins = [{"name": o.name, "relation": o.relation, "received": o.received_at,
                            "actor": o.actor, "source_path": o.source_path}
                           for o in session.scalars(select(Origin).where(
                               Origin.item_id == item_id).order_by(Origin.id))]
                made = [{"id": d.derived_item_id, "kind": d.kind, "tool": d.tool,
                         "version": d.tool_version}
                        for d in session.scalars(select(Derivation).where(
                            Derivation.source_item_id == item_id).order_by(Derivation.id))
                        if d.derived_item_id not in withheld]
                restriction = current_restrictions(session).get(item_id)
            viewer = viewer_for(item)
            pages = 0
            if viewer == "pdf":
                try:
                    pages = renditions.pdf_page_count(self.bytes_of(item))
                except renditions.RenditionError:
                    viewer = "none"
            has_text = text_of(self.web.case, item) is not None
            log_view(self.web.case, "web: item", [item_ref(item)], {"viewer": viewer})
            return Shown(item, sorted({o["name"] for o in origins}), origins, made, viewer,
                         pages, has_text, restriction.kind if restriction else None)

        shown = await self.web.run(work, actor=user.user)
        return self.web.page("item.html", user=user, s=shown,
                             revealed=(user.user, item_id) in self._revealed,
                             most_pages=renditions.MOST_PAGES,
                             done=request.query_params.get("done"))

    async def capture(self, request: Request, user: SignedIn) -> Response:
        item_id = int(request.path_params["item_id"])

        def work() -> str:
            item = self.item_for(user, item_id)
            if viewer_for(item) != "capture":
                raise NotFound(f"item {item_id} is not an HTML capture")
            body = renditions.harmless_html(self.bytes_of(item))
            log_view(self.web.case, "web: HTML capture", [item_ref(item)])
            return body

        body = await self.web.run(work, actor=user.user)
        page = ("<!doctype html><html><head><meta charset=\"utf-8\"></head><body>"
                f"{body}</body></html>")
        return HTMLResponse(page, headers=CAPTURE_HEADERS)

    async def pdf_page(self, request: Request, user: SignedIn) -> Response:
        item_id = int(request.path_params["item_id"])
        number = int(request.path_params["page"])

        def work() -> bytes:
            item = self.item_for(user, item_id)
            key = (item.sha256, number)
            if key not in self._pages:
                if len(self._pages) > 200:  # a bounded cache of page images
                    self._pages.pop(next(iter(self._pages)))
                self._pages[key] = renditions.pdf_page_png(self.bytes_of(item), number)
            log_view(self.web.case, "web: PDF page", [item_ref(item)], {"page": number})
            return self._pages[key]

        return Response(await self.web.run(work, actor=user.user), media_type="image/png")

    async def picture(self, request: Request, user: SignedIn) -> Response:
        return await self._shown(request, user, "web: picture", renditions.picture_png)

    async def poster(self, request: Request, user: SignedIn) -> Response:
        return await self._shown(request, user, "web: video poster",
                                 renditions.video_poster_png)

    async def _shown(self, request: Request, user: SignedIn, what: str,
                     rendition: Callable[..., bytes]) -> Response:
        """A picture or a video's poster, blurred until this person gave a reason."""
        item_id = int(request.path_params["item_id"])
        revealed = (user.user, item_id) in self._revealed

        def work() -> bytes:
            item = self.item_for(user, item_id)
            shown = rendition(self.bytes_of(item), blurred=not revealed)
            log_view(self.web.case, what, [item_ref(item)], {"blurred": not revealed})
            return shown

        return Response(await self.web.run(work, actor=user.user), media_type="image/png")

    async def search(self, request: Request, user: SignedIn) -> Response:
        query = (request.query_params.get("q") or "").strip()

        def work() -> Search:
            found = search_texts(self.web.case, query, withheld=self.web.withheld(user))
            if found.words:
                log_view(self.web.case, "web: text search",
                         details={"words": found.words, "matching": found.matching,
                                  "shown": [f.item_id for f in found.found]})
            return found

        found = await self.web.run(work, actor=user.user)
        return self.web.page("search.html", user=user, q=query, search=found)

    async def reveal(self, request: Request, user: SignedIn) -> Response:
        item_id = int(request.path_params["item_id"])
        form = await request.form()
        reason = str(form.get("reason") or "").strip()

        def work() -> None:
            item = self.item_for(user, item_id)
            if not reason:
                raise RevealRefused("a reason is required to see this unblurred")
            log_view(self.web.case, "web: graphic media shown", [item_ref(item)],
                     {"reason": reason})

        await self.web.run(work, actor=user.user)
        self._revealed.add((user.user, item_id))
        return RedirectResponse(f"/items/{item_id}?done=shown", status_code=303)


def routes_of(evidence: Evidence, guarded: Callable[[str, str, Callable[
        [Request, SignedIn], Awaitable[Response]]], Callable[[Request], Awaitable[Response]]]
              ) -> Mapping[str, tuple[str, str, Callable[[Request], Awaitable[Response]]]]:
    """The evidence routes: name -> (method, path, guarded endpoint)."""
    g = guarded
    return {
        "items": ("GET", "/items", g("items", "view_evidence", evidence.items)),
        "item": ("GET", "/items/{item_id:int}", g("item", "view_evidence", evidence.item)),
        "capture": ("GET", "/items/{item_id:int}/capture",
                    g("capture", "view_evidence", evidence.capture)),
        "pdf_page": ("GET", "/items/{item_id:int}/pages/{page:int}.png",
                     g("pdf_page", "view_evidence", evidence.pdf_page)),
        "picture": ("GET", "/items/{item_id:int}/picture.png",
                    g("picture", "view_evidence", evidence.picture)),
        "search": ("GET", "/search", g("search", "view_evidence", evidence.search)),
        "poster": ("GET", "/items/{item_id:int}/poster.png",
                   g("poster", "view_evidence", evidence.poster)),
        "reveal": ("POST", "/items/{item_id:int}/reveal",
                   g("reveal", "view_evidence", evidence.reveal)),
    }
