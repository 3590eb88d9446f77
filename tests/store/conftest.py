"""The store tests' PostgreSQL database: CI starts a local server and sets
CASEBUILDER_TEST_POSTGRES_URL (an admin URL such as postgresql+psycopg://cb:cb@127.0.0.1:5432/
postgres); each test that asks for ``postgres_url`` gets a database of its own, dropped after."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine, text

ADMIN_URL = os.environ.get("CASEBUILDER_TEST_POSTGRES_URL", "")


@pytest.fixture
def postgres_url() -> Iterator[str]:
    if not ADMIN_URL:
        pytest.skip("CASEBUILDER_TEST_POSTGRES_URL is not set (.ci/run sets it after starting "
                    "a local PostgreSQL server)")
    pytest.importorskip("psycopg", reason="the postgres extra (psycopg) is not installed")
    name = f"cb_{uuid.uuid4().hex[:12]}"
    admin = create_engine(ADMIN_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    base = ADMIN_URL.rsplit("/", 1)[0]
    try:
        yield f"{base}/{name}"
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


