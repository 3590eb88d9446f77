"""What stands between a request and the case: the session cookie, the role's permission, the
CSRF token of every form, a limit on failed sign-ins, and the security headers of every
answer. Nothing here reads incidents; pages.py does, once the guard lets a request through."""

from __future__ import annotations

import hmac
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from casebuilder.preservation.access import allowed

SESSION_COOKIE = "cb_session"
LOGIN_COOKIE = "cb_login"  # the login form's own CSRF token, before there is a session
#: No inline script or style, nothing from elsewhere, no framing, forms only to this server.
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "font-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; "
       "frame-src 'self'; "
       "base-uri 'none'; object-src 'none'")
HEADERS = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
    "permissions-policy": "camera=(), microphone=(), geolocation=()",
    "cache-control": "no-store",
}


#: The headers an answer may set for itself (SecurityHeaders).
OWN = frozenset({"content-security-policy", "x-frame-options"})


class SecurityHeaders:
    """ASGI middleware: every answer, errors included, carries HEADERS. An answer that sets
    its own content-security-policy and x-frame-options keeps them: only the evidence
    viewer's harmless capture does, with a stricter policy (no script at all, framed by
    this server's pages only)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in HEADERS.items():
                    if name in OWN and name in headers:
                        continue
                    headers[name] = value
            await send(message)

        await self.app(scope, receive, with_headers)


@dataclass
class LoginThrottle:
    """At most ``failures`` failed sign-ins per client address and per user name within
    ``window`` seconds; then sign-ins from there (or for that name) wait. Kept in memory: a
    restart forgets it, which an attacker cannot cause from a browser."""

    failures: int = 5
    window: float = 300.0
    clock: Callable[[], float] = time.monotonic
    _seen: dict[str, deque[float]] = field(default_factory=dict)

    def blocked(self, *keys: str) -> bool:
        now = self.clock()
        for key in keys:
            times = self._seen.get(key)
            while times and now - times[0] > self.window:
                times.popleft()
            if times and len(times) >= self.failures:
                return True
        return False

    def failed(self, *keys: str) -> None:
        for key in keys:
            self._seen.setdefault(key, deque()).append(self.clock())


def same_token(sent: str | None, expected: str) -> bool:
    return bool(sent) and hmac.compare_digest(str(sent), expected)


@dataclass(frozen=True)
class Guarded:
    """A route's handler with the one permission it needs."""

    permission: str
    handler: Callable[[Request], Awaitable[Response]]


def refused(request: Request, signed_in: bool) -> Response:
    """Without a session: back to the login page (GET) or 401; signed in without the
    permission: 403, saying nothing of what is there."""
    if not signed_in:
        if request.method == "GET":
            return RedirectResponse("/login", status_code=303)
        return PlainTextResponse("sign in first", status_code=401)
    return PlainTextResponse("your role does not allow this", status_code=403)


def permitted(role: str, permission: str) -> bool:
    return allowed(role, permission)
