"""The wire vocabulary (wire/): every client frame a page writes with ``to_json`` reads back as the same
frame, every server constructor writes the shape docs/protocol.md gives, and sizes come from the rules."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

import engine
import wire
from wire import server

ids = st.none() | st.text("abcdefghij0123456789.-", min_size=1, max_size=wire.MAX_ID)
squares = st.builds(lambda c, r: f"{c}{r}", st.sampled_from("ABCDEFGHIJKLM"), st.integers(1, 13))
tiles = st.builds(
    wire.TileIn, squares, st.sampled_from(["", "?", *"ABCDEFGHIJKLMNOPQRSTUVWXYZ"]), st.booleans()
)
names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=wire.MAX_NAME)
frames = st.one_of(
    st.builds(wire.Join, ids, name=names),
    st.builds(wire.Join, ids, token=st.text("abcdefXYZ019_-", min_size=1, max_size=wire.MAX_TOKEN)),
    st.builds(wire.Watch, ids),
    st.builds(wire.Start, ids, st.booleans()),
    st.builds(wire.Leave, ids, st.booleans()),
    st.builds(wire.AddBot, ids, st.sampled_from(wire.LEVELS), st.booleans()),
    st.builds(wire.RemoveBot, ids, st.integers(0, engine.MAX_SEATS - 1), st.booleans()),
    st.builds(wire.Place, ids, st.lists(tiles, min_size=1, max_size=wire.MAX_RACK).map(tuple), st.booleans()),
    st.builds(
        wire.Swap,
        ids,
        st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZ?", min_size=1, max_size=wire.MAX_RACK),
        st.booleans(),
    ),
    st.builds(wire.Pass, ids, st.booleans()),
    st.builds(wire.Resync, ids, st.none() | st.integers(0, 2**53 - 1)),
    st.builds(wire.Ping, ids),
    st.builds(wire.Rematch, ids),
    st.builds(wire.Chat, ids, st.text(max_size=200), st.none() | names),
    st.builds(wire.Analyse, ids),
)


@given(frames)
def test_every_client_frame_written_by_to_json_parses_back_as_the_same_frame(frame: wire.ClientFrame) -> None:
    assert wire.parse_client_frame(json.dumps(frame.to_json())) == frame


def test_a_frame_without_an_id_is_written_without_the_key() -> None:
    assert wire.Resync(since=4).to_json() == {"type": "resync", "since": 4}
    assert wire.Pass("p1", resent=True).to_json() == {"type": "pass", "id": "p1", "resent": True}


def test_the_largest_play_and_swap_are_the_largest_rack_of_the_variants() -> None:
    assert max(v.rack_size for v in engine.VARIANTS.values()) == wire.MAX_RACK
    tile = {"sq": "G7", "letter": "A", "blank": False}
    assert (
        len(wire.parse_client_frame(json.dumps({"type": "place", "tiles": [tile] * wire.MAX_RACK})).tiles)
        == 7
    )
    too_many = json.dumps({"type": "place", "tiles": [tile] * (wire.MAX_RACK + 1)})
    try:
        wire.parse_client_frame(too_many)
    except wire.ProtocolError as err:
        assert (err.code, err.params["field"]) == ("bad_message", "tiles")
    else:
        raise AssertionError("a play of more tiles than any rack holds was accepted")


def test_the_server_constructors_write_protocol_version_1_shapes_in_its_key_order() -> None:
    assert list(server.welcome(1, "j0", "t", 0, "tok", 5)) == [
        "type",
        "protocol",
        "id",
        "table",
        "seat",
        "token",
        "now",
    ]
    assert server.ack("a", 3, 9) == {"type": "ack", "id": "a", "seq": 3, "now": 9}
    snap = server.snapshot(2, {}, {"turn": None}, [{"seat": 0, "connected": True}], 1, 7)
    assert list(snap) == ["type", "seq", "view", "clock", "presence", "watchers", "now"]
    rematch = {"table": "n", "link": "http://x/t/n", "by": 0}
    assert server.snapshot(2, {}, {}, [], 0, 7, rematch)["rematch"] == rematch
    assert server.error(None, "bad_json", "no", None, 1)["params"] == {}
    assert server.rematch(rematch, 4) == {"type": "rematch", **rematch, "now": 4}


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=4),
    max_leaves=30,
)


@given(json_values)
def test_a_frame_holds_no_more_values_and_keys_than_its_text_has_characters(value: object) -> None:
    # Why parse_client_frame counts the values of long frames only (wire/client.py).
    from wire.client import _count_values

    assert _count_values(value) <= len(json.dumps(value, separators=(",", ":"), ensure_ascii=False))


def _compact(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


@given(
    st.integers(0, 2**53),
    st.dictionaries(st.text(max_size=5), json_values, max_size=6),
    st.dictionaries(st.text(max_size=5), st.none() | st.integers(0, 2**53), max_size=3),
    st.integers(0, 2**53),
)
def test_an_event_frame_written_from_its_encoded_parts_is_the_encoded_event_frame(
    seq: int, redacted: dict[str, object], clock: dict[str, object], now: int
) -> None:
    text = server.event_text(seq, _compact(redacted), _compact(clock), now)
    assert text == _compact(server.event(seq, redacted, clock, now))
