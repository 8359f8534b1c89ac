"""Hostile frame shapes (issue 16, problem 1): nesting, escapes, long strings, many keys. Each is refused with
a documented code before anything walks it, counts toward the bad-frame limit, and leaves one WARNING line
at most (no ERROR, no traceback) in the log."""

from __future__ import annotations

import json
import logging

import aiohttp
import pytest
from relaykit import Player, RunningRelay, create_table

from relay.protocol import MAX_DEPTH, MAX_VALUES, ProtocolError, parse_frame

# The frame of the issue: 690 bytes, one escape, 328 nested arrays (it made the old check recurse).
NESTED_328 = '{"type":"ping","id":"\\u0041","x":' + "[" * 328 + "]" * 328 + "}"

HOSTILE = {
    "deep_arrays_with_escape": NESTED_328,
    "deep_arrays": '{"type":"ping","x":' + "[" * 1500 + "]" * 1500 + "}",
    "deep_objects": '{"type":"ping","x":' + '{"a":' * 600 + "1" + "}" * 600 + "}",
    "deep_mixed_unbalanced": '{"type":"ping","x":' + '[{"a":' * 400,
    "just_past_the_depth_cap": '{"type":"ping","x":' + "[" * MAX_DEPTH + "]" * MAX_DEPTH + "}",
    "lone_surrogate_deep": '{"type":"ping","x":[[[["\\ud800"]]]]}',
    "lone_surrogate_key": '{"type":"ping","\\udc00":1}',
    "lone_surrogate_in_id": '{"type":"ping","id":"\\udbff"}',
    "long_string": '{"type":"ping","id":"' + "A" * 3900 + '"}',
    "long_key": '{"type":"ping","' + "k" * 3900 + '":1}',
    "many_keys": "{" + ",".join(f'"k{i}":0' for i in range(400)) + ',"type":"ping"}',
    "many_values": '{"type":"ping","x":[' + ",".join("0" for _ in range(1500)) + "]}",
    "huge_integer": '{"type":"resync","since":' + "9" * 4000 + "}",
    "escaped_quotes_and_brackets": '{"type":"ping","x":"' + '\\"[' * 1200 + '"}',
}
EXPECTED = {
    "long_string": "bad_message",
    "long_key": "bad_message",
    "escaped_quotes_and_brackets": "bad_message",
    "huge_integer": "bad_message",  # brackets inside a string are no nesting
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_shape_is_refused_with_a_code_without_recursing(name: str) -> None:
    text = HOSTILE[name]
    assert len(text.encode()) <= 4096, "within the frame cap: the shape itself must be refused"
    with pytest.raises(ProtocolError) as info:
        parse_frame(text)
    assert info.value.code == EXPECTED.get(name, "bad_json")


def test_the_nesting_of_a_real_placement_is_accepted() -> None:
    tiles = [{"sq": "G7", "letter": "A", "blank": False}] * 7
    assert len(parse_frame(json.dumps({"type": "place", "tiles": tiles})).tiles) == 7
    assert MAX_VALUES >= 1 + 2 + 2 + 7 * 7  # type, tiles and every key and value of seven tiles
    # A full surrogate pair is one ordinary character.
    assert parse_frame('{"type":"join","name":"\\ud83c\\udfb2"}').name == "\U0001f3b2"


async def test_hostile_frames_count_toward_the_bad_frame_limit_and_log_no_traceback(
    relay: RunningRelay, session: aiohttp.ClientSession, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    table_id = await create_table(session, relay)
    p = await Player.connect(session, relay, table_id)
    shapes = sorted(HOSTILE)
    for i in range(50):
        err = await p.send_raw(HOSTILE[shapes[i % len(shapes)]])
        assert err["code"] in ("bad_json", "bad_message"), err
    pong = await p.send({"type": "ping"})
    assert pong["type"] == "pong"  # 50 bad frames: still up
    await p.ws.send_str(NESTED_328)  # the 51st
    await p.reader
    assert p.closed == 1008
    records = [r for r in caplog.records if r.name.startswith("lexio")]
    assert not [r for r in records if r.levelno >= logging.ERROR or r.exc_info], "a client error is no bug"
    warnings = [r for r in records if r.levelno == logging.WARNING]
    assert 1 <= len(warnings) <= 25, len(warnings)  # one line per bad frame, at a bounded rate
    assert sum(len(r.getMessage()) + len(str(getattr(r, "fields", ""))) for r in warnings) < 25 * 400
