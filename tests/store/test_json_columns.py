"""JSON columns are read by orjson where it gives exactly what json gives, and by json
where it would not (integers past 64 bits, lone surrogates, numbers past a double)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from casebuilder.store.database import _json_value

values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text()
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=30)


@given(values)
def test_a_stored_value_reads_back_as_json_reads_it(value):  # type: ignore[no-untyped-def]
    for written in (json.dumps(value), json.dumps(value, ensure_ascii=False)):
        read = _json_value(written)
        assert read == json.loads(written)
        assert json.dumps(read) == json.dumps(json.loads(written))  # same types, ints stay ints


def test_the_cases_orjson_alone_would_get_wrong_are_read_by_json():
    assert _json_value('{"killed": 123456789012345678901234}') == {
        "killed": 123456789012345678901234}
    assert _json_value("[-9223372036854775809]") == [-9223372036854775809]
    assert _json_value('"\\ud800 a lone surrogate"') == "\ud800 a lone surrogate"
    assert _json_value("[1e400]") == [float("inf")]
    assert _json_value(b'{"a": 1}') == {"a": 1}
