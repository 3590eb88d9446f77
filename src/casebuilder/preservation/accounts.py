"""User accounts and web sessions of a case: who may sign in, with which role, and which
browsers are signed in. Passwords are kept only as Argon2 hashes, session tokens only as their
SHA-256. Adding a user, signing in (or failing to) and signing out are custody entries, so the
log says who worked on the case. Used by ``casebuilder user`` and by the web interface."""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import delete, func, select

from casebuilder.errors import CasebuilderError
from casebuilder.model.clock import format_utc
from casebuilder.preservation.access import shipped_access
from casebuilder.preservation.case import Case
from casebuilder.store.schema import UserAccount, WebSession

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,79}")
MIN_PASSWORD = 12
SESSION_HOURS = 12
_HASHER = PasswordHasher()
# Checked against when the name is unknown, so a wrong name costs the same time as a wrong
# password and the answer does not tell which names exist.
_NOBODY = _HASHER.hash(secrets.token_urlsafe(16))


class AccountError(CasebuilderError):
    """A user account that cannot be made as asked (a taken name, an unknown role...)."""


@dataclass(frozen=True)
class SignedIn:
    """A live web session: whose it is, their role, and the token its forms send back."""

    user: str
    role: str
    csrf: str


def count_users(case: Case) -> int:
    with case.session() as session:
        return int(session.scalar(select(func.count()).select_from(UserAccount)) or 0)


def add_user(case: Case, name: str, role: str, password: str) -> None:
    """A new account; the custody entry names it, its role and who added it (never the
    password or its hash)."""
    if not NAME.fullmatch(name):
        raise AccountError(f"user name {name!r}: use 1-80 letters, digits, '.', '_' or '-', "
                           "starting with a letter or digit")
    roles = shipped_access().roles
    if role not in roles:
        raise AccountError(f"unknown role {role!r}; roles: {', '.join(roles)}")
    if len(password) < MIN_PASSWORD:
        raise AccountError(f"the password must have at least {MIN_PASSWORD} characters")
    hashed = _HASHER.hash(password)
    with case.transaction() as tx:
        if tx.session.get(UserAccount, name) is not None:
            raise AccountError(f"there is already a user {name!r}")
        tx.session.add(UserAccount(name=name, role=role, password_hash=hashed,
                                   created_at=format_utc(case.clock()), disabled=False))
        tx.record("user", details={"change": "added", "user": name, "role": role})
    case.checkpoint()


def sign_in(case: Case, name: str, password: str, *, client: str) -> tuple[str, SignedIn] | None:
    """A new session's token and what it holds if the name and password are right, else None;
    either way a ``login`` entry says so (with the name tried and the client's address)."""
    with case.session() as session:
        account = session.get(UserAccount, name) if NAME.fullmatch(name) else None
        stored = account.password_hash if account and not account.disabled else _NOBODY
        role = account.role if account else ""
    try:
        ok = _HASHER.verify(stored, password) and stored is not _NOBODY
    except (VerificationError, InvalidHashError):
        ok = False
    token, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    now = case.clock()
    with case.transaction() as tx:
        if ok:
            tx.session.add(WebSession(token_sha256=_digest(token), user_name=name, csrf=csrf,
                                      created_at=format_utc(now),
                                      expires_at=format_utc(now + timedelta(hours=SESSION_HOURS))))
        tx.record("login", details={"user": name[:80], "client": client,
                                    "outcome": "signed in" if ok else "refused"})
    case.checkpoint()
    return (token, SignedIn(name, role, csrf)) if ok else None


def signed_in(case: Case, token: str) -> SignedIn | None:
    """The live session a cookie's token opens, if any (expired or disabled: none)."""
    if not token:
        return None
    with case.session() as session:
        row = session.get(WebSession, _digest(token))
        if row is None or row.expires_at <= format_utc(case.clock()):
            return None
        account = session.get(UserAccount, row.user_name)
        if account is None or account.disabled:
            return None
        return SignedIn(account.name, account.role, row.csrf)


def sign_out(case: Case, token: str) -> None:
    with case.transaction() as tx:
        row = tx.session.get(WebSession, _digest(token))
        if row is None:
            return
        tx.session.execute(delete(WebSession).where(WebSession.token_sha256 == row.token_sha256))
        tx.record("logout", details={"user": row.user_name})
    case.checkpoint()


def users(case: Case) -> list[tuple[str, str, str, bool]]:
    """Every account: name, role, when it was added, whether it is disabled."""
    with case.session() as session:
        return [(u.name, u.role, u.created_at, u.disabled) for u in
                session.scalars(select(UserAccount).order_by(UserAccount.name))]


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


__all__ = ["AccountError", "SignedIn", "add_user", "count_users",
           "sign_in", "sign_out", "signed_in", "users"]
