"""The relay's one JSON writer (relay.journal.sqlite.compact_json, behind every journal row and every frame):
byte for byte what ``json.dumps`` with the same options writes, and the same refusal of what is not JSON."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from relay.journal.sqlite import compact_json
from relay.tables.table import dumps

values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**80), 2**80)
    | st.floats()
    | st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=40,
)


@given(values)
def test_compact_json_writes_what_json_dumps_writes(value: object) -> None:
    want = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    assert compact_json(value) == want
    assert dumps({"value": value}) == json.dumps({"value": value}, separators=(",", ":"), ensure_ascii=False)


def test_compact_json_refuses_what_is_not_json_as_json_dumps_does() -> None:
    for bad in ({"x": object()}, {1j: 2}, [b"bytes"]):
        with pytest.raises(TypeError) as ours:
            compact_json(bad)
        with pytest.raises(TypeError) as theirs:
            json.dumps(bad, separators=(",", ":"), ensure_ascii=False)
        assert str(ours.value) == str(theirs.value)
