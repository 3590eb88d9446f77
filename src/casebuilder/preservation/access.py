"""Roles and permissions of the people who use a case through the web interface, read from
access.toml (data an administrator can read) and checked on load. The web front end asks
:func:`allowed` before it answers any request; nothing here knows about HTTP."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources

from casebuilder.errors import ConfigurationError
from casebuilder.model.described import described, toml_of


@dataclass(frozen=True)
class Access:
    roles: dict[str, str]  # role -> description
    permissions: dict[str, frozenset[str]]  # permission -> roles holding it
    descriptions: dict[str, str]  # permission -> description
    #: Kinds of restricted material (witness statements, identities...) -> description: what
    #: an item may be restricted as (preservation/restriction.py).
    restricted: dict[str, str]


def parse_access(text: str, origin: str) -> Access:
    """The roles and permissions of an access.toml text; every problem is named."""
    data = toml_of(text, origin)
    roles = {name: str(body["description"])
             for name, body in described(data, "roles", "role", origin).items()}
    if not roles:
        raise ConfigurationError(f"{origin}: no [roles.NAME] table")
    permissions: dict[str, frozenset[str]] = {}
    descriptions: dict[str, str] = {}
    for name, body in described(data, "permissions", "permission", origin).items():
        held = body.get("roles")
        if not isinstance(held, list) or not held:
            raise ConfigurationError(f"{origin}: permission {name!r} names no roles")
        unknown = sorted(str(r) for r in held if r not in roles)
        if unknown:
            raise ConfigurationError(f"{origin}: permission {name!r} names unknown roles "
                                     f"{', '.join(unknown)}")
        permissions[name] = frozenset(str(r) for r in held)
        descriptions[name] = str(body["description"])
    restricted = {name: str(body["description"]) for name, body in
                  described(data, "restricted", "kind of restricted material", origin).items()}
    if restricted and "view_restricted" not in permissions:
        raise ConfigurationError(f"{origin}: kinds of restricted material are listed but no "
                                 "permission 'view_restricted' says who may see them")
    return Access(roles, permissions, descriptions, restricted)


@cache
def shipped_access() -> Access:
    source = resources.files("casebuilder.preservation").joinpath("access.toml")
    return parse_access(source.read_text(encoding="utf-8"), "access.toml")


def allowed(role: str, permission: str, access: Access | None = None) -> bool:
    """Whether a role holds a permission; an unknown permission is held by nobody."""
    access = access or shipped_access()
    return role in access.permissions.get(permission, frozenset())
