"""The bus's wire format (relay/cluster/bus.py): what the edge and the owner publish reads back as it was
sent."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from relay.cluster.bus import BusError, Message, decode, encode

node_ids = st.text(
    st.characters(blacklist_characters="\t", blacklist_categories=("Cs",)), min_size=1, max_size=40
)


@given(
    kind=st.sampled_from("ofbescp"),
    source=node_ids,
    conn=st.integers(0, 2**53),
    number=st.integers(-1, 2**40),
    body=st.text(st.characters(blacklist_categories=("Cs",)), max_size=200),
)
def test_every_bus_message_reads_back_as_sent_whatever_its_body_holds(
    kind: str, source: str, conn: int, number: int, body: str
) -> None:
    raw = encode(kind, source, conn, number, body)
    assert decode(raw.encode()) == Message(kind, source, conn, number, body)


@pytest.mark.parametrize("raw", [b"", b"o\tnode\t1", b"o\tnode\tx\t0\t", b"\xff\xfe", "f\tn\t1\tz\tbody"])
def test_a_message_not_made_by_the_bus_is_refused_with_a_code(raw: bytes | str) -> None:
    with pytest.raises(BusError) as err:
        decode(raw)
    assert err.value.code == "bad_bus_message"
