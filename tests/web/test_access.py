"""Every route of the web interface, for every role and for nobody, against a table written
here (not read from access.toml), so a change to who may see what has to change this test."""

from __future__ import annotations

import pytest
from starlette.routing import Mount, Route

from casebuilder.errors import ConfigurationError
from casebuilder.preservation.access import parse_access, shipped_access
from casebuilder.web.app import make_app
from web.conftest import client_for, csrf_of

ALL = {"viewer", "analyst", "reviewer", "legal", "administrator"}
#: (method, route name) -> roles that get the page; everybody else: 403 (signed in) or
#: refused (not signed in).
EXPECTED = {
    ("GET", "home"): ALL,
    ("GET", "incidents"): ALL,
    ("GET", "map"): ALL,
    ("GET", "duplicates"): ALL,
    ("GET", "patterns"): ALL,
    ("GET", "download"): ALL,
    ("GET", "exports"): {"legal", "administrator"},
    ("POST", "report"): {"legal", "administrator"},
    ("POST", "bundle"): {"legal", "administrator"},
    ("GET", "verify_page"): {"reviewer", "legal", "administrator"},
    # a verification needs no reason: permitted roles get its report
    ("POST", "verify"): {"reviewer", "legal", "administrator"},
    ("POST", "dismiss"): {"analyst", "reviewer", "administrator"},
    ("GET", "map_incidents"): ALL,
    ("GET", "basemap"): ALL,
    ("GET", "incident"): ALL,
    ("GET", "item_text"): ALL,
    ("GET", "items"): ALL,
    ("GET", "search"): ALL,
    ("GET", "item"): ALL,
    ("GET", "capture"): ALL,
    ("GET", "pdf_page"): ALL,
    ("GET", "picture"): ALL,
    ("GET", "poster"): ALL,
    # asked without a reason (400 for those who may), so nothing is shown by this test
    ("POST", "reveal"): ALL,
    ("GET", "custody"): ALL - {"viewer"},
    ("GET", "users"): {"administrator"},
    ("POST", "logout"): ALL,
    # decisions: permitted roles reach the decision, which refuses the empty reason sent here
    # (400), so the shared case is not changed by this test
    ("POST", "move"): ALL - {"viewer"},
    ("POST", "bulk_move"): ALL - {"viewer"},
    ("POST", "change"): {"analyst", "reviewer", "administrator"},
    ("POST", "assign"): ALL - {"viewer"},
    ("POST", "comment"): ALL - {"viewer"},
}
#: POST routes that run something rather than decide (no reason asked).
RUNS = {"verify"}
PUBLIC = {("GET", "login_page"), ("POST", "login"), ("GET", "static")}


def routes(app):  # type: ignore[no-untyped-def]
    for route in app.routes:
        if isinstance(route, Mount):
            yield "GET", route.name, route.path + "/app.css"
        elif isinstance(route, Route):
            for method in sorted(route.methods or ()):
                if method != "HEAD":
                    yield method, route.name, route.path


#: The exhibit each evidence route is asked about (web/conftest.py EXHIBITS, PICTURE); the
#: other item routes are asked about the text an incident cites.
EXHIBIT_OF = {"capture": "market-capture.html", "pdf_page": "two-pages.pdf",
              "picture": "crater.png", "reveal": "crater.png", "poster": "street.mp4"}


def concrete(path: str, incident: tuple[str, int], name: str = "",
             exhibits: dict[str, int] | None = None) -> str:
    item = (exhibits or {}).get(EXHIBIT_OF.get(name, ""), incident[1])
    return path.replace("{incident_id}", incident[0]).replace(
        "{item_id:int}", str(item)).replace("{page:int}", "1")


@pytest.fixture(scope="module")
def incident(web_home):  # type: ignore[no-untyped-def]
    from casebuilder.preservation.case import open_case
    from casebuilder.resolution.stored import ListFilter, listed, stored_record

    case = open_case(web_home, environ={})
    try:
        first = listed(case, ListFilter())[0][0]["id"]
        return first, stored_record(case, first)["sources"][0]["item_id"]
    finally:
        case.close()


@pytest.fixture(scope="module")
def exhibits(web_home):  # type: ignore[no-untyped-def]
    from casebuilder.preservation.case import open_case
    from casebuilder.store.schema import Origin

    case = open_case(web_home, environ={})
    try:
        with case.session() as session:
            return {o.name: o.item_id for o in session.query(Origin)}
    finally:
        case.close()


def test_every_route_is_in_the_table(web_case):
    found = {(m, n) for m, n, _ in routes(make_app(web_case))}
    assert found == set(EXPECTED) | PUBLIC


def test_unauthenticated_requests_are_refused_everywhere_but_the_login_page(web_case, incident):
    client = client_for(web_case, None)
    for method, name, path in routes(client.app):
        response = client.request(method, concrete(path, incident), follow_redirects=False)
        if (method, name) in PUBLIC:
            assert response.status_code in {200, 303}, (method, path)
            continue
        assert response.status_code in {303, 401}, (method, path, response.status_code)
        if response.status_code == 303:
            assert response.headers["location"] == "/login"
        assert incident[0] not in response.text


@pytest.mark.parametrize("role", sorted(ALL))
def test_each_role_reaches_exactly_what_the_table_gives_it(web_case, incident, exhibits,
                                                           role):
    client = client_for(web_case, role)
    empty = {"csrf": csrf_of(client), "move": "start_review", "action": "grade",
             "grade": "weak", "reason": " ", "text": " "}
    for method, name, path in routes(client.app):
        if (method, name) in PUBLIC or (method, name) == ("POST", "logout"):
            continue
        response = client.request(method, concrete(path, incident, name, exhibits),
                                  follow_redirects=False,
                                  data=empty if method == "POST" else None)
        if role in EXPECTED[(method, name)]:
            expected = {400} if method == "POST" and name not in RUNS else {200, 303}
            assert response.status_code in expected, (role, path, response.status_code)
            if method == "POST" and name not in RUNS:  # refused by the decision, not the door
                assert "reason is required" in response.text or \
                    "a reason is required to see" in response.text or \
                    "a reason is required: say for whom" in response.text or \
                    "needs the permission review_incidents, which a legal lacks" in response.text
        else:
            assert response.status_code == 403, (role, path, response.status_code)


def test_a_route_without_a_known_permission_is_refused_to_everybody():
    from casebuilder.preservation.access import allowed

    assert not any(allowed(role, "no_such_permission") for role in ALL)
    assert set(shipped_access().roles) == ALL


@pytest.mark.parametrize("text, problem", [
    ("[roles.a]\n", "role 'a' has no description"),
    ('[roles.a]\ndescription="x"\n[permissions.p]\ndescription="y"\nroles=["b"]\n',
     "unknown roles b"),
    ('[roles.a]\ndescription="x"\n[permissions.p]\ndescription="y"\nroles=[]\n',
     "names no roles"),
    ("roles = ", "not valid TOML"),
])
def test_a_bad_access_file_is_refused_with_its_problem(text, problem):
    with pytest.raises(ConfigurationError, match=problem):
        parse_access(text, "access.toml")
