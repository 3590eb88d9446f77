"""The web interface's defences, each tried for real: headers on every answer, CSRF on every
form, the sign-in limit, the session cookie's flags, escaped ingested content, and the custody
entries of sign-ins and reads with the user as actor."""

from __future__ import annotations

import json
import re

from sqlalchemy import select

from casebuilder.store.schema import CustodyEvent, Origin, UserAccount
from casebuilder.web.guard import CSP, LoginThrottle
from web.conftest import HOSTILE_NAME, PASSWORD, client_for, csrf_of, sign_in


def entries(case, action):  # type: ignore[no-untyped-def]
    with case.session() as session:
        rows = session.scalars(select(CustodyEvent).where(CustodyEvent.action == action)
                               .order_by(CustodyEvent.seq))
        return [json.loads(r.entry) for r in rows]


def test_every_answer_carries_the_security_headers(web_case):
    client = client_for(web_case, "analyst")
    for path in ["/login", "/incidents", "/no/such/page", "/static/app.css", "/custody"]:
        headers = client.get(path, follow_redirects=False).headers
        assert headers["content-security-policy"] == CSP, path
        assert "'unsafe-inline'" not in headers["content-security-policy"]
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["x-frame-options"] == "DENY"


def test_the_session_cookie_is_secure_httponly_and_strict(web_case):
    client = client_for(web_case, None)
    cookie = sign_in(client, "viewer").headers["set-cookie"].lower()
    assert "cb_session=" in cookie and "secure" in cookie and "httponly" in cookie
    assert "samesite=strict" in cookie


def test_only_the_hash_of_a_password_is_kept(web_case):
    with web_case.session() as session:
        stored = session.get(UserAccount, "viewer")
    assert stored is not None and stored.password_hash.startswith("$argon2id$")
    assert PASSWORD not in stored.password_hash
    assert all(PASSWORD not in json.dumps(e) for e in entries(web_case, "user"))


def test_a_form_without_its_csrf_token_changes_nothing(web_case):
    client = client_for(web_case, "analyst")
    assert client.post("/logout", data={}, follow_redirects=False).status_code == 403
    assert client.post("/logout", data={"csrf": "forged"},
                       follow_redirects=False).status_code == 403
    assert client.get("/incidents").status_code == 200  # still signed in
    token = csrf_of(client)
    assert client.post("/logout", data={"csrf": token}, follow_redirects=False
                       ).status_code == 303
    assert client.get("/incidents", follow_redirects=False).status_code == 303
    # and a login form whose token is not the one its cookie holds is turned back
    fresh = client_for(web_case, None)
    fresh.get("/login")
    answer = fresh.post("/login", data={"name": "viewer", "password": PASSWORD,
                                        "csrf": "guessed"}, follow_redirects=False)
    assert answer.headers["location"] == "/login?m=expired"


def test_failed_sign_ins_are_limited_and_logged(web_case):
    now = [0.0]
    throttle = LoginThrottle(failures=3, window=60, clock=lambda: now[0])
    client = client_for(web_case, None, throttle=throttle)
    before = len(entries(web_case, "login"))
    for _ in range(3):
        assert sign_in(client, "legal", "wrong password!").headers["location"] == \
            "/login?m=refused"
    # now even the right password waits
    assert sign_in(client, "legal").status_code == 429
    now[0] = 61.0
    assert sign_in(client, "legal").status_code == 303
    logged = entries(web_case, "login")[before:]
    assert [e["details"]["outcome"] for e in logged] == ["refused"] * 3 + ["signed in"]
    assert all(e["details"]["user"] == "legal" for e in logged)


def test_an_unknown_name_is_refused_like_a_wrong_password(web_case):
    client = client_for(web_case, None)
    assert sign_in(client, "nobody-here").headers["location"] == "/login?m=refused"


def test_reads_are_custody_entries_with_the_user_as_actor(web_case):
    client = client_for(web_case, "reviewer")
    page = client.get("/incidents")
    first = re.search(r'href="/incidents/([^"]+)"', page.text)
    assert first
    client.get(f"/incidents/{first.group(1)}")
    views = [e for e in entries(web_case, "view") if e["actor"] == "reviewer"]
    assert [e["details"]["what"] for e in views][-2:] == ["web: incident list",
                                                          "web: incident"]
    assert views[-1]["details"]["incident"] == first.group(1)
    assert views[-1]["items"], "the items the page rests on are named"


def test_ingested_markup_is_shown_as_text_never_as_markup(web_case):
    with web_case.session() as session:
        item = session.scalars(select(Origin).where(Origin.name == HOSTILE_NAME)).one()
    client = client_for(web_case, "viewer")
    page = client.get(f"/items/{item.item_id}/text?start=0&end=8")
    assert page.status_code == 200
    for raw in ["<script>", "<svg", "<img", "<a href=\"javascript:", "<b "]:
        assert raw not in page.text, raw
    assert "&lt;script&gt;alert(&#39;text&#39;)&lt;/script&gt;" in page.text
    assert "&lt;img src=x onerror=alert(1)&gt;.txt" in page.text
