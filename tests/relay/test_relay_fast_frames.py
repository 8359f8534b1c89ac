"""The game socket's fast frame reader (relay/http/ws.py, ``fast_frame``): whatever the peer sends and however
the reads cut it, a socket gives its session the same messages and writes the same bytes (pongs, close
frames) as the same socket reading everything through wsproto."""

from __future__ import annotations

import asyncio
import itertools
import os
from collections.abc import Iterator
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from relay.http import ws

TEXT, BINARY, CONT, CLOSE, PING, PONG = 0x1, 0x2, 0x0, 0x8, 0x9, 0xA


def frame(
    opcode: int,
    payload: bytes,
    *,
    fin: bool = True,
    masked: bool = True,
    rsv: int = 0,
    wide: bool = False,
    mask: bytes = b"\x01\x02\x03\x04",
) -> bytes:
    """One client frame as bytes (``wide``: the length in 2 bytes even when 1 would do, a protocol error)."""
    n = len(payload)
    head = bytes([(0x80 if fin else 0) | rsv << 4 | opcode])
    bit = 0x80 if masked else 0
    if n < 126 and not wide:
        head += bytes([bit | n])
    elif n < 1 << 16:
        head += bytes([bit | 126]) + n.to_bytes(2, "big")
    else:
        head += bytes([bit | 127]) + n.to_bytes(8, "big")
    if not masked:
        return head + payload
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


class Transport(asyncio.Transport):
    """Records what the socket writes and how it ends the connection."""

    def __init__(self) -> None:
        super().__init__()
        self.out = bytearray()
        self.closing = False
        self.eof = False
        self.reading = True
        self.ends: list[str] = []

    def write(self, data: Any) -> None:
        self.out += data

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True
        self.ends.append("close")

    def abort(self) -> None:
        self.closing = True
        self.ends.append("abort")

    def can_write_eof(self) -> bool:
        return True

    def write_eof(self) -> None:
        self.eof = True
        self.ends.append("eof")

    def get_write_buffer_size(self) -> int:
        return 0

    def pause_reading(self) -> None:
        self.reading = False

    def resume_reading(self) -> None:
        self.reading = True

    def is_reading(self) -> bool:
        return self.reading


class Session:
    def __init__(self) -> None:
        self.messages: list[str | bytes] = []

    async def frame(self, data: str | bytes, t0: float) -> bool:
        self.messages.append(data)
        return True

    async def ended(self) -> None:
        self.messages.append("<ended>")


def _without_fast_path(data: bytes, pos: int, limit: int) -> tuple[str | None, int]:
    return None, ws.NOT_FAST


def serve(
    chunks: list[bytes], *, max_size: int, fast: bool
) -> tuple[list[str | bytes], bytes, Any, list[str]]:
    """Feed ``chunks`` (one read each) to a fresh socket; what its session got and what it wrote."""
    reader = ws.fast_frame
    if not fast:
        ws.fast_frame = _without_fast_path  # type: ignore[assignment]
    try:

        async def run() -> tuple[list[str | bytes], bytes, Any, list[str]]:
            session = Session()
            sock = ws.WebSocket(session, ws.Hub(), max_size=max_size)
            transport = Transport()
            sock.attach(transport)
            for chunk in chunks:
                if transport.reading:
                    sock.data_received(chunk)
                for _ in range(3):
                    await asyncio.sleep(0)  # the session's worker takes its messages
                for _ in range(100):  # and resumes reading once it has taken enough
                    if transport.reading:
                        break
                    await asyncio.sleep(0)
            for _ in range(100):
                await asyncio.sleep(0)
            code = sock.close_code
            sock.connection_lost(None)
            for _ in range(5):
                await asyncio.sleep(0)
            return session.messages, bytes(transport.out), code, transport.ends

        return asyncio.run(run())
    finally:
        ws.fast_frame = reader  # type: ignore[assignment]


def same_as_wsproto(chunks: list[bytes], max_size: int = 1 << 16) -> list[str | bytes]:
    fast = serve(chunks, max_size=max_size, fast=True)
    slow = serve(chunks, max_size=max_size, fast=False)
    assert fast == slow
    return fast[0]


def cut(data: bytes, points: list[int]) -> list[bytes]:
    edges = sorted({p % (len(data) + 1) for p in points} | {0, len(data)})
    return [data[a:b] for a, b in itertools.pairwise(edges) if b > a] or [data]


def test_a_whole_masked_text_frame_is_read_without_wsproto() -> None:
    data = frame(TEXT, '{"type":"pass","id":"é"}'.encode())
    assert ws.fast_frame(data, 0, 1000) == ('{"type":"pass","id":"é"}', len(data))
    long = "x" * 300
    assert ws.fast_frame(frame(TEXT, long.encode()), 0, 1000) == (long, 308)
    assert same_as_wsproto([data + data]) == ['{"type":"pass","id":"é"}'] * 2 + ["<ended>"]


def test_what_the_fast_reader_is_not_sure_of_is_left_to_wsproto() -> None:
    for data in (
        frame(TEXT, b"ab", fin=False),  # a fragment
        frame(TEXT, b"ab", masked=False),  # a protocol error
        frame(TEXT, b"ab", rsv=4),
        frame(TEXT, b"ab", wide=True),
        frame(TEXT, b"\xff\xfe"),  # not UTF-8
        frame(TEXT, b"x" * 100)[:50],  # cut by the read
        frame(BINARY, b"ab"),
        frame(PING, b""),
        frame(CLOSE, (1000).to_bytes(2, "big")),
        frame(TEXT, b"x" * 70000),  # 8-byte length
    ):
        assert ws.fast_frame(data, 0, 1 << 20) == (None, ws.NOT_FAST)
    assert ws.fast_frame(frame(TEXT, b"x" * 11), 0, 10) == (None, ws.NOT_FAST)  # past the size cap
    assert ws.fast_frame(frame(PONG, b"p"), 0, 10) == (None, 7)  # a pong is skipped


def test_invalid_utf8_closes_with_1007_as_wsproto_does() -> None:
    fast = serve([frame(TEXT, b"ok"), frame(TEXT, b"\xed\xa0\x80")], max_size=1000, fast=True)
    assert fast == serve([frame(TEXT, b"ok"), frame(TEXT, b"\xed\xa0\x80")], max_size=1000, fast=False)
    assert fast[0][0] == "ok" and fast[2] == 1007


def test_a_fragmented_message_with_a_ping_between_its_parts_reads_as_through_wsproto() -> None:
    data = frame(TEXT, b"he", fin=False) + frame(PING, b"?") + frame(CONT, b"llo") + frame(TEXT, b"next")
    for points in ([], [1], [7], [9, 10], list(range(len(data)))):
        assert same_as_wsproto(cut(data, points)) == ["hello", "next", "<ended>"]


def test_a_message_past_the_size_cap_closes_with_1009_as_through_wsproto() -> None:
    messages, _, code, _ = serve([frame(TEXT, b"ok") + frame(TEXT, b"y" * 40)], max_size=30, fast=True)
    assert (messages, code) == (["ok", "<ended>"], 1009)
    same_as_wsproto([frame(TEXT, b"ok") + frame(TEXT, b"y" * 40)], max_size=30)


def test_a_burst_past_the_inbox_limit_pauses_reading_and_loses_nothing() -> None:
    texts = [f"m{i}" for i in range(3 * ws.INBOX_LIMIT)]
    data = b"".join(frame(TEXT, t.encode()) for t in texts)
    assert same_as_wsproto([data]) == [*texts, "<ended>"]


def _frames() -> st.SearchStrategy[bytes]:
    text = st.text(max_size=40).map(lambda t: t.encode("utf-8", "surrogatepass"))
    payload = st.one_of(text, st.binary(max_size=30), st.just("é".encode() * 80))
    mask = st.binary(min_size=4, max_size=4)
    whole_text = st.builds(lambda p, m: frame(TEXT, p, mask=m), text, mask)
    control = st.builds(
        lambda op, p, m: frame(op, p, mask=m), st.sampled_from([PING, PONG]), st.binary(max_size=10), mask
    )
    close = st.builds(
        lambda code, m: frame(CLOSE, code.to_bytes(2, "big"), mask=m),
        st.sampled_from([1000, 1001, 4000]),
        mask,
    )

    @st.composite
    def fragmented(draw: st.DrawFn) -> bytes:
        body = draw(text)
        parts = draw(st.integers(1, 4))
        step = max(1, len(body) // parts)
        pieces = [body[i : i + step] for i in range(0, len(body), step)] or [b""]
        out = b""
        for i, piece in enumerate(pieces):
            out += frame(TEXT if i == 0 else CONT, piece, fin=i == len(pieces) - 1, mask=draw(mask))
            if draw(st.booleans()):
                out += draw(control)
        return out

    # A frame with one thing wrong (or merely unusual) about it.
    defects: list[dict[str, Any]] = [
        {"fin": False},
        {"masked": False},
        {"rsv": 4},
        {"rsv": 1},
        {"wide": True},
    ]
    odd = st.one_of(
        st.builds(lambda p, d: frame(TEXT, p, **d), payload, st.sampled_from(defects)),
        st.builds(frame, st.sampled_from([BINARY, CONT, PONG, 0x3, 0xB]), payload),
    )
    return st.one_of(whole_text, whole_text, whole_text, control, fragmented(), odd, close)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(_frames(), min_size=1, max_size=12),
    st.lists(st.integers(0, 10_000), max_size=6),
    st.sampled_from([1 << 16, 60]),
)
@example([frame(TEXT, b"a")] * 40, [], 1 << 16)
@example([frame(TEXT, b"\xc3"), frame(TEXT, b"ok")], [1], 1 << 16)
def test_any_frames_cut_anywhere_read_as_through_wsproto(
    frames: list[bytes], points: list[int], size: int
) -> None:
    data = b"".join(frames)
    same_as_wsproto(cut(data, points), max_size=size)


def _chunks(n: int) -> Iterator[bytes]:
    for _ in range(n):
        yield os.urandom(16)


def test_random_bytes_read_as_through_wsproto() -> None:
    for chunk in _chunks(50):
        same_as_wsproto([frame(TEXT, b"hi") + chunk])
