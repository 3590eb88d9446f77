"""Claim values read back from a case go through model.claim_values.from_json: every value
extraction stored reads back and re-serialises to the same canonical JSON, and a
stored value with a key its kind does not have stops the reading with the claim named."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select, update

from casebuilder.errors import ClaimValueError
from casebuilder.model.claim_values import from_json, to_json
from casebuilder.preservation.case import open_case
from casebuilder.resolution.records import load_mentions
from casebuilder.store import schema
from conftest import run_cli


def test_every_stored_value_reads_back_and_serialises_byte_identically(dev_case_home):
    case = open_case(dev_case_home, environ={})
    try:
        with case.session() as session:
            rows = list(session.execute(select(schema.Claim)).scalars())
        assert rows
        for row in rows:
            again = to_json(from_json(row.kind, row.value))
            # The results digest (and so the stored row) is canonical JSON: sorted keys.
            assert json.dumps(again, sort_keys=True) == json.dumps(row.value, sort_keys=True), (
                row.id, row.kind)
        records = load_mentions(case)
        assert sum(len(m.claims) + len(m.not_taken) for m in records) > 0
    finally:
        case.close()


def test_a_stored_value_of_another_shape_is_refused_with_the_claim_named(dev_case_copy):
    case = open_case(dev_case_copy, environ={})
    try:
        with case.transaction() as tx:
            row = tx.session.execute(select(schema.Claim).where(
                schema.Claim.kind == "weapon")).scalars().first()
            assert row is not None
            claim_id, item_id = row.id, row.item_id
            tx.session.execute(update(schema.Claim).where(schema.Claim.id == claim_id).values(
                value={**row.value, "calibre": "122 mm"}))
            # values of another shape come from another extractor, whose id the stored
            # incidents were not built with: they are made again from the claims
            tx.session.execute(update(schema.IncidentState).values(rules="another extractor"))
        with pytest.raises(ClaimValueError) as refused:
            load_mentions(case)
    finally:
        case.close()
    message = str(refused.value)
    assert f"claim {claim_id}" in message and "'calibre'" in message and "weapon" in message
    assert f"extract --force {item_id}" in message
    shown = run_cli("incidents", home=dev_case_copy)
    assert shown.returncode != 0 and "Traceback" not in shown.stderr
    assert "'calibre'" in shown.stderr + shown.stdout
