"""The web application: its routes, each with the permission it needs (ROUTES), and the pages
they render from the library (stored incidents, items' texts, the custody log). Every page that
shows case material is logged as a ``view`` entry with the signed-in user as actor; sign-in and
sign-out are entries of their own (preservation/accounts.py).

One case is open for the server's life. Requests reach it one at a time (a lock), because the
case's custody writer names one actor per unit of work; reads of the stored tables take
milliseconds, so a team's few requests a second do not queue for long."""

from __future__ import annotations

import gc
import hashlib
import json
import math
import threading
from collections.abc import Awaitable, Callable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote, urlencode

import orjson
from jinja2 import Environment, FileSystemLoader, select_autoescape
from sqlalchemy import select
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from casebuilder.analysis.elements.catalogue import load_catalogue
from casebuilder.analysis.elements.matrix import IncidentMatrix, crimes_in_reach, element_matrix
from casebuilder.errors import CasebuilderError, NotFound
from casebuilder.model.terms import GRADES
from casebuilder.preservation import accounts
from casebuilder.preservation.accounts import SignedIn
from casebuilder.preservation.case import Case
from casebuilder.preservation.items import item_ref
from casebuilder.preservation.reads import log_view, text_of
from casebuilder.preservation.restriction import withheld_items
from casebuilder.reporting.casefile.incident_report import Account, accounts_of
from casebuilder.reporting.maps.basemap import basemap_geojson, load_basemap
from casebuilder.resolution import review
from casebuilder.resolution.decisions import (
    EDITABLE,
    Decision,
    DecisionError,
    edit_value,
    require_reason,
)
from casebuilder.resolution.duplicates import likely_duplicates
from casebuilder.resolution.stored import ListFilter
from casebuilder.resolution.summary import Incident
from casebuilder.resolution.withholding import seen_incident_and_record, seen_lines, seen_record
from casebuilder.resolution.workflow import moves_open, review_of, shipped_workflow
from casebuilder.store.schema import CustodyEvent, Item
from casebuilder.web.analysis import Analysis
from casebuilder.web.evidence import Evidence, routes_of
from casebuilder.web.exports import Exports
from casebuilder.web.guard import (
    LOGIN_COOKIE,
    SESSION_COOKIE,
    LoginThrottle,
    SecurityHeaders,
    permitted,
    refused,
    same_token,
)
from casebuilder.web.params import day_of, near_of, number_of

T = TypeVar("T")
PAGE_SIZE = 200
STATUS_ORDER = {status: n for n, status in enumerate(shipped_workflow().statuses)}
SORTS = {
    "date": lambda line: (line.get("date_start") or line.get("date_earliest") or ""),
    "place": lambda line: (line.get("place") or "").lower(),
    "killed": lambda line: line.get("killed_max") or -1,
    "grade": lambda line: line.get("grade") or "",
    "status": lambda line: STATUS_ORDER.get(line.get("status") or "", -1),
}


Handler = Callable[[Request, SignedIn], Awaitable[Response]]


class WebApp:
    """The routes of one case. ``ROUTES`` (built in ``routes``) is what the access test reads."""

    def __init__(self, case: Case, *, throttle: LoginThrottle | None = None) -> None:
        self.case = case
        self.throttle = throttle or LoginThrottle()
        self._lock = threading.Lock()
        folder = Path(str(resources.files("casebuilder.web").joinpath("templates")))
        self.templates = Environment(loader=FileSystemLoader(folder),
                                     autoescape=select_autoescape(["html"]))
        # Each route's permission, by its name: None for the login page only.
        self.permissions: dict[str, str | None] = {}
        self._basemap: bytes | None = None
        self.evidence = Evidence(self)
        self.analysis = Analysis(self)
        self.exports = Exports(self)

    # -- plumbing -------------------------------------------------------------------------

    async def run(self, work: Callable[[], T], actor: str | None = None) -> T:
        """Run case work in a thread, one request at a time, with ``actor`` as the custody
        entries' actor."""

        def locked() -> T:
            with self._lock:
                before = self.case.actor
                if actor is not None:
                    self.case.actor = actor
                # A list of 10,000 incidents makes some 300,000 short-lived objects, none in a
                # cycle; the collector's passes over them and over everything alive were half
                # of such a request (benchmarks/web_pages.py). Reference counting frees them;
                # cycles wait for the next request's end.
                collecting = gc.isenabled()
                gc.disable()
                try:
                    return work()
                finally:
                    self.case.actor = before
                    if collecting:
                        gc.enable()

        return await run_in_threadpool(locked)

    def withheld(self, user: SignedIn) -> frozenset[int]:
        """The items this user must not see: none for a role cleared for restricted
        material, else every restricted item and all made from them."""
        if permitted(user.role, "view_restricted"):
            return frozenset()
        with self.case.session() as session:
            return withheld_items(session)

    def seen(self, user: SignedIn, incident_id: str) -> dict[str, Any]:
        """An incident as this user may see it; NotFound for one resting on withheld items
        alone, on every route, as for an incident the case does not hold."""
        return seen_record(self.case, incident_id, self.withheld(user))

    @staticmethod
    def told(incident: Incident) -> tuple[list[Account], IncidentMatrix]:
        """What is worked out from the claims a user may see: the narrative (as the case
        file tells it) and the element matrix of the crimes the claims reach (pattern
        signals wait for a pattern run: the patterns page)."""
        catalogue = load_catalogue()
        return accounts_of(incident), element_matrix(incident, catalogue,
                                                  crimes_in_reach(incident, catalogue))

    def seen_then(self, user: SignedIn, incident_id: str, act: Callable[[], T]) -> T:
        """Do ``act`` on an incident only if this user may see it (else NotFound)."""
        self.seen(user, incident_id)
        return act()

    def page(self, template: str, status: int = 200, **values: Any) -> HTMLResponse:
        body = self.templates.get_template(template).render(**values)
        return HTMLResponse(body, status_code=status)

    def guarded(self, name: str, permission: str, handler: Handler
                ) -> Callable[[Request], Awaitable[Response]]:
        """The one door of every route but the login page: a live session, the permission,
        and on anything but GET the session's CSRF token."""
        self.permissions[name] = permission

        async def endpoint(request: Request) -> Response:
            token = request.cookies.get(SESSION_COOKIE, "")
            user = await self.run(lambda: accounts.signed_in(self.case, token))
            if user is None or not permitted(user.role, permission):
                return refused(request, user is not None)
            if request.method != "GET":
                form = await request.form()
                sent = form.get("csrf")
                if not same_token(sent if isinstance(sent, str) else None, user.csrf):
                    return refused(request, True)
            try:
                return await handler(request, user)
            except NotFound as exc:
                return self.page("error.html", 404, user=user, message=str(exc))
            except CasebuilderError as exc:
                return self.page("error.html", 400, user=user, message=str(exc))

        return endpoint

    def routes(self) -> list[BaseRoute]:
        g = self.guarded
        self.permissions.update({"login_page": None, "login": None, "static": None})
        static = Path(str(resources.files("casebuilder.web").joinpath("static")))
        return [
            Route("/login", self.login_page, methods=["GET"], name="login_page"),
            Route("/login", self.login, methods=["POST"], name="login"),
            Route("/logout", g("logout", "own_session", self.logout), methods=["POST"],
                  name="logout"),
            Route("/", g("home", "view_incidents", self.home), methods=["GET"], name="home"),
            Route("/incidents", g("incidents", "view_incidents", self.incidents),
                  methods=["GET"], name="incidents"),
            Route("/map", g("map", "view_incidents", self.map_page), methods=["GET"],
                  name="map"),
            Route("/patterns", g("patterns", "view_incidents", self.analysis.patterns),
                  methods=["GET"], name="patterns"),
            Route("/verify", g("verify_page", "verify_case", self.analysis.verify_page),
                  methods=["GET"], name="verify_page"),
            Route("/verify", g("verify", "verify_case", self.analysis.verify),
                  methods=["POST"], name="verify"),
            Route("/items/{item_id:int}/file", g("download", "view_evidence",
                                                 self.exports.download),
                  methods=["GET"], name="download"),
            Route("/exports", g("exports", "make_reports", self.exports.page),
                  methods=["GET"], name="exports"),
            Route("/reports", g("report", "make_reports", self.exports.report),
                  methods=["POST"], name="report"),
            Route("/bundles", g("bundle", "make_bundles", self.exports.bundle),
                  methods=["POST"], name="bundle"),
            Route("/duplicates", g("duplicates", "view_incidents", self.duplicates),
                  methods=["GET"], name="duplicates"),
            Route("/duplicates/dismiss", g("dismiss", "change_incidents", self.dismiss),
                  methods=["POST"], name="dismiss"),
            Route("/map/incidents.geojson", g("map_incidents", "view_incidents",
                                              self.map_incidents), methods=["GET"],
                  name="map_incidents"),
            Route("/map/basemap.geojson", g("basemap", "view_incidents", self.basemap),
                  methods=["GET"], name="basemap"),
            Route("/incidents/{incident_id}", g("incident", "view_incidents", self.incident),
                  methods=["GET"], name="incident"),
            Route("/incidents/{incident_id}/move", g("move", "move_incidents", self.move),
                  methods=["POST"], name="move"),
            Route("/incidents/bulk", g("bulk_move", "move_incidents", self.bulk_move),
                  methods=["POST"], name="bulk_move"),
            Route("/incidents/{incident_id}/change",
                  g("change", "change_incidents", self.change), methods=["POST"],
                  name="change"),
            Route("/incidents/{incident_id}/assign",
                  g("assign", "assign_incidents", self.assign), methods=["POST"],
                  name="assign"),
            Route("/incidents/{incident_id}/comment",
                  g("comment", "comment_incidents", self.comment), methods=["POST"],
                  name="comment"),
            Route("/items/{item_id:int}/text", g("item_text", "view_evidence", self.item_text),
                  methods=["GET"], name="item_text"),
            *[Route(path, endpoint, methods=[method], name=name) for name, (
                method, path, endpoint) in routes_of(self.evidence, g).items()],
            Route("/custody", g("custody", "view_custody", self.custody), methods=["GET"],
                  name="custody"),
            Route("/users", g("users", "manage_users", self.users), methods=["GET"],
                  name="users"),
            # The style sheet only: the login page needs it, and it holds nothing of the case.
            Mount("/static", StaticFiles(directory=static), name="static"),
        ]

    # -- signing in and out ------------------------------------------------------------------

    async def login_page(self, request: Request) -> Response:
        import secrets

        token = secrets.token_urlsafe(32)
        response = self.page("login.html", csrf=token, message=request.query_params.get("m"))
        _set_cookie(response, LOGIN_COOKIE, token, max_age=1800)
        return response

    async def login(self, request: Request) -> Response:
        form = await request.form()
        name, password = str(form.get("name", "")), str(form.get("password", ""))
        if not same_token(str(form.get("csrf", "")), request.cookies.get(LOGIN_COOKIE, "")):
            return RedirectResponse("/login?m=expired", status_code=303)
        client = request.client.host if request.client else "unknown"
        keys = (f"client:{client}", f"user:{name.lower()}")
        if self.throttle.blocked(*keys):
            return self.page("login.html", 429, csrf=request.cookies.get(LOGIN_COOKIE, ""),
                             message="throttled")
        signed = await self.run(lambda: accounts.sign_in(self.case, name, password,
                                                         client=client), actor=name[:80])
        if signed is None:
            self.throttle.failed(*keys)
            return RedirectResponse("/login?m=refused", status_code=303)
        token, _ = signed
        response = RedirectResponse("/incidents", status_code=303)
        _set_cookie(response, SESSION_COOKIE, token, max_age=accounts.SESSION_HOURS * 3600)
        response.delete_cookie(LOGIN_COOKIE, path="/")
        return response

    async def logout(self, request: Request, user: SignedIn) -> Response:
        token = request.cookies.get(SESSION_COOKIE, "")
        await self.run(lambda: accounts.sign_out(self.case, token), actor=user.user)
        response = RedirectResponse("/login?m=signed-out", status_code=303)
        response.delete_cookie(SESSION_COOKIE, path="/")
        return response

    # -- pages -------------------------------------------------------------------------------

    async def home(self, request: Request, user: SignedIn) -> Response:
        return RedirectResponse("/incidents", status_code=303)

    def selection(self, query: Mapping[str, str], user: SignedIn
                  ) -> tuple[list[dict[str, Any]], int]:
        """The incidents a list or a map shows for these filters, as this user may see them,
        in the order of first report, and how many the case holds for them."""
        chosen = ListFilter(place=query.get("place") or None,
                            since=day_of(query.get("since")), until=day_of(query.get("until")),
                            category=query.get("category") or None,
                            grade=query.get("grade") or None,
                            near=near_of(query.get("near"), query.get("km")))
        words = (query.get("q") or "").strip().lower()
        status = query.get("status") or None
        assigned = (query.get("assigned") or "").strip().lower()
        perpetrator = (query.get("perpetrator") or "").strip().lower()
        lines, total = seen_lines(self.case, chosen, self.withheld(user))
        if perpetrator:
            # whoever a source claims did it, whichever side: the same filter for every side
            lines = [ln for ln in lines if any(perpetrator in str(p).lower()
                                               for p in ln.get("perpetrator_claimed") or [])]
        if words:
            lines = [ln for ln in lines if words in ln["words"]]
        if status:
            lines = [ln for ln in lines if ln.get("status") == status]
        if assigned:
            lines = [ln for ln in lines if (ln.get("assigned") or "").lower() == assigned]
        return lines, total

    async def incidents(self, request: Request, user: SignedIn) -> Response:
        query = request.query_params
        sort = query.get("sort") or "date"
        if sort not in SORTS:
            sort = "date"
        descending = query.get("order") == "desc"
        page = max(1, number_of(query.get("page"), 1))

        def work() -> tuple[list[dict[str, Any]], int, int]:
            lines, total = self.selection(query, user)
            lines.sort(key=SORTS[sort], reverse=descending)
            shown = lines[(page - 1) * PAGE_SIZE: page * PAGE_SIZE]
            log_view(self.case, "web: incident list",
                     details={"filters": _filters(query), "matching": len(lines),
                              "shown": [ln["id"] for ln in shown]})
            return shown, len(lines), total

        shown, matching, total = await self.run(work, actor=user.user)
        return self.page("incidents.html", user=user, lines=shown, matching=matching,
                         total=total, query=query, sort=sort, descending=descending, page=page,
                         pages=max(1, math.ceil(matching / PAGE_SIZE)), grades=GRADES,
                         statuses=shipped_workflow().statuses, action="/incidents",
                         moves=shipped_workflow().moves.values(),
                         can=lambda permission: permitted(user.role, permission))

    async def duplicates(self, request: Request, user: SignedIn) -> Response:
        def work() -> tuple[list[dict[str, Any]], int]:
            lines, _ = self.selection({}, user)
            pairs = likely_duplicates(lines, review.dismissed_pairs(self.case))
            by_id = {ln["id"]: ln for ln in lines}
            log_view(self.case, "web: likely duplicates",
                     details={"pairs": len(pairs),
                              "shown": [[p.first, p.second] for p in pairs]})
            return [{"pair": p, "a": by_id[p.first], "b": by_id[p.second]}
                    for p in pairs], len(lines)

        pairs, among = await self.run(work, actor=user.user)
        return self.page("duplicates.html", user=user, pairs=pairs, among=among,
                         can=lambda permission: permitted(user.role, permission),
                         done=request.query_params.get("done"))

    async def dismiss(self, request: Request, user: SignedIn) -> Response:
        form = await request.form()
        first, second = _field(form, "first"), _field(form, "second")

        def work() -> Decision:
            require_reason(_field(form, "reason"))
            self.seen(user, first)
            self.seen(user, second)
            return review.dismiss_duplicate(self.case, first, second, _field(form, "reason"))

        await self.run(work, actor=user.user)
        return RedirectResponse("/duplicates?done=dismissed", status_code=303)

    async def map_page(self, request: Request, user: SignedIn) -> Response:
        """The page only: its incidents come from :meth:`map_incidents`, asked by map.js with
        the same filters, so a page of 10,000 incidents is not one HTML document."""
        query = request.query_params
        return self.page("map.html", user=user, query=query,
                         query_string=urlencode(_filters(query)), grades=GRADES,
                         statuses=shipped_workflow().statuses, action="/map",
                         attribution=load_basemap().attribution)

    async def map_incidents(self, request: Request, user: SignedIn) -> Response:
        query = request.query_params

        def work() -> bytes:
            lines, _ = self.selection(query, user)
            ids = [ln["id"] for ln in lines]
            # The ids shown are many: the entry keeps their count and a digest of the sorted
            # list, which the stored incidents of that time give back.
            log_view(self.case, "web: incident map",
                     details={"filters": _filters(query), "matching": len(ids),
                              "shown_sha256": hashlib.sha256(
                                  "\n".join(sorted(ids)).encode()).hexdigest()})
            return orjson.dumps(map_features(lines))

        body = await self.run(work, actor=user.user)
        return Response(body, media_type="application/geo+json")

    async def basemap(self, request: Request, user: SignedIn) -> Response:
        if self._basemap is None:  # the same for every request: made once
            self._basemap = json.dumps(basemap_geojson(load_basemap()),
                                       separators=(",", ":")).encode()
        return Response(self._basemap, media_type="application/geo+json")

    async def incident(self, request: Request, user: SignedIn) -> Response:
        incident_id = request.path_params["incident_id"]

        def work() -> tuple[dict[str, Any], list[Account], IncidentMatrix]:
            incident, record = seen_incident_and_record(self.case, incident_id,
                                                        self.withheld(user))
            told, matrix = self.told(incident)
            ids = sorted({int(s["item_id"]) for s in record.get("sources") or []
                          if s.get("item_id") is not None})
            with self.case.session() as session:
                items = list(session.scalars(select(Item).where(Item.id.in_(ids))))
            log_view(self.case, "web: incident", [item_ref(i) for i in items],
                     {"incident": incident_id, "catalogue": matrix.catalogue})
            return record, told, matrix

        try:
            record, told, matrix = await self.run(work, actor=user.user)
        except NotFound:
            holder = await self.run(lambda: review.merged_into(self.case, incident_id))
            if holder is None:
                raise
            return RedirectResponse(f"/incidents/{quote(holder, safe='')}?merged_from="
                                    f"{quote(incident_id, safe='')}", status_code=303)
        standing = review_of(record.get("analyst_decisions") or [])
        return self.page("incident.html", user=user, r=record, review=standing, matrix=matrix,
                         told=told,
                         editable=EDITABLE,
                         moves=moves_open(standing, user.role, user.user),
                         statuses=shipped_workflow().statuses, grades=GRADES,
                         can=lambda permission: permitted(user.role, permission),
                         done=request.query_params.get("done"),
                         merged_from=request.query_params.get("merged_from"))

    # -- decisions: each a POST with a reason, then back to the incident's page ---------------

    async def move(self, request: Request, user: SignedIn) -> Response:
        form = await request.form()
        incident_id = request.path_params["incident_id"]
        decision = await self.run(lambda: self.seen_then(
            user, incident_id, lambda: review.move_incident(
                self.case, incident_id, _field(form, "move"), _field(form, "reason"),
                role=user.role)), actor=user.user)
        return _back_to(decision.incident_id, f"{decision.payload['move']}")

    async def change(self, request: Request, user: SignedIn) -> Response:
        form = await request.form()
        action = _field(form, "action")
        payload: dict[str, Any]
        if action == "merge":
            payload = {"others": _field(form, "others").replace(",", " ").split()}
        elif action == "split":
            payload = {"documents": [str(v) for v in form.getlist("documents")]}
        elif action == "grade":
            payload = {"grade": _field(form, "grade")}
        elif action == "edit":
            field = _field(form, "field")
            payload = {"field": field, "value": edit_value(field, _field(form, "value"))}
        else:
            raise DecisionError(f"the web interface cannot {action!r} an incident")
        incident_id = request.path_params["incident_id"]

        def work() -> Decision:
            for shown in [incident_id, *payload.get("others", [])]:
                self.seen(user, shown)
            return review.change_incident(self.case, action, incident_id, payload,
                                          _field(form, "reason"))

        decision = await self.run(work, actor=user.user)
        return _back_to(decision.incident_id, action)

    async def bulk_move(self, request: Request, user: SignedIn) -> Response:
        """One review move for many incidents, one decision each with the same reason; a
        move refused for one (the four-eyes rule, a status it cannot leave) is said for it
        and the others go on."""
        form = await request.form()
        move, reason = _field(form, "move"), _field(form, "reason")
        chosen = [str(v) for v in form.getlist("incidents")]

        def work() -> list[tuple[str, str | None]]:
            require_reason(reason)
            outcomes: list[tuple[str, str | None]] = []
            for incident_id in chosen:
                try:
                    self.seen(user, incident_id)
                    review.move_incident(self.case, incident_id, move, reason, role=user.role)
                    outcomes.append((incident_id, None))
                except CasebuilderError as exc:
                    outcomes.append((incident_id, str(exc)))
            return outcomes

        outcomes = await self.run(work, actor=user.user)
        return self.page("bulk.html", user=user, move=move, outcomes=outcomes,
                         moved=sum(1 for _, refused in outcomes if refused is None))

    async def assign(self, request: Request, user: SignedIn) -> Response:
        form = await request.form()
        incident_id = request.path_params["incident_id"]
        decision = await self.run(lambda: self.seen_then(
            user, incident_id, lambda: review.assign_incident(
                self.case, incident_id, _field(form, "assignee").strip(),
                _field(form, "reason"))), actor=user.user)
        return _back_to(decision.incident_id, "assign")

    async def comment(self, request: Request, user: SignedIn) -> Response:
        form = await request.form()
        incident_id = request.path_params["incident_id"]
        decision = await self.run(lambda: self.seen_then(
            user, incident_id, lambda: review.comment_on(
                self.case, incident_id, _field(form, "text"))), actor=user.user)
        return _back_to(decision.incident_id, "comment")

    async def item_text(self, request: Request, user: SignedIn) -> Response:
        item_id = int(request.path_params["item_id"])
        start = number_of(request.query_params.get("start"), -1)
        end = number_of(request.query_params.get("end"), -1)

        def work() -> tuple[Item, str, list[str]]:
            with self.case.session() as session:
                item = session.get(Item, item_id)
                names = sorted({o.name for o in item.origins}) if item else []
            if item is None or item_id in self.withheld(user):
                raise NotFound(f"no item {item_id} in this case")
            found = text_of(self.case, item)
            if found is None:
                raise NotFound(f"item {item_id} has no text")
            text_item, text = found
            refs = [item_ref(item)] + ([item_ref(text_item)] if text_item.id != item.id else [])
            log_view(self.case, "web: item text", refs,
                     {"span": [start, end]} if 0 <= start < end else None)
            return item, text, names

        item, text, names = await self.run(work, actor=user.user)
        span = (start, end) if 0 <= start < end <= len(text) else None
        parts = ([text[:span[0]], text[span[0]:span[1]], text[span[1]:]] if span
                 else [text, "", ""])
        return self.page("text.html", user=user, item=item, names=names, parts=parts,
                         span=span)

    async def custody(self, request: Request, user: SignedIn) -> Response:
        def work() -> list[dict[str, Any]]:
            log_view(self.case, "web: custody log")
            withheld = self.withheld(user)
            with self.case.session() as session:
                rows = session.scalars(select(CustodyEvent)
                                       .order_by(CustodyEvent.seq.desc()).limit(300))
                entries = [json.loads(r.entry) for r in rows]
            # An entry naming a withheld item (its intake, text, restriction, a view of it)
            # would give away its name, size or that it exists: left out for this reader.
            return [e for e in entries if not any(
                isinstance(i, dict) and i.get("id") in withheld for i in e.get("items") or [])]

        entries = await self.run(work, actor=user.user)
        return self.page("custody.html", user=user, entries=entries)

    async def users(self, request: Request, user: SignedIn) -> Response:
        def work() -> list[tuple[str, str, str, bool]]:
            log_view(self.case, "web: user accounts")
            return accounts.users(self.case)

        return self.page("users.html", user=user, accounts=await self.run(work,
                                                                          actor=user.user))


def make_app(case: Case, *, throttle: LoginThrottle | None = None) -> Starlette:
    web = WebApp(case, throttle=throttle)
    app = Starlette(routes=web.routes())
    app.state.web = web
    app.add_middleware(SecurityHeaders)
    return app


def _set_cookie(response: Response, name: str, value: str, *, max_age: int) -> None:
    # Secure: browsers keep such cookies over plain HTTP only on localhost; anywhere else the
    # server belongs behind TLS (docs/web.md).
    response.set_cookie(name, value, max_age=max_age, path="/", secure=True, httponly=True,
                        samesite="strict")


def _field(form: Any, name: str) -> str:
    value = form.get(name)
    return value if isinstance(value, str) else ""


def _back_to(incident_id: str, done: str) -> Response:
    return RedirectResponse(f"/incidents/{quote(incident_id, safe='')}?done={quote(done)}",
                            status_code=303)


def _filters(query: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in query.items() if v and k in
            {"place", "since", "until", "category", "grade", "status", "assigned", "q", "sort",
             "order", "page", "perpetrator", "near", "km"}}


def map_features(lines: list[dict[str, Any]]) -> dict[str, Any]:
    """Listed incidents as the GeoJSON the map and timeline draw: a point where the incident
    has a place on the map (none where not: it is still on the timeline), and the few
    properties they show."""
    features = []
    for ln in lines:
        point = ({"type": "Point", "coordinates": [ln["lon"], ln["lat"]]}
                 if ln.get("lat") is not None and ln.get("lon") is not None else None)
        features.append({"type": "Feature", "id": ln["id"], "geometry": point, "properties": {
            "id": ln["id"], "date": ln.get("date_start") or ln.get("date_earliest"),
            "date_end": ln.get("date_end"), "place": ln.get("place"),
            "admin1": ln.get("admin1"), "categories": ln.get("categories") or [],
            "killed": ln.get("killed_min"), "grade": ln.get("grade"),
            "status": ln.get("status")}})
    return {"type": "FeatureCollection", "features": features}
