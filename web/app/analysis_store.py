"""The analysis a seat was served, kept by this browser (localStorage ``lexio:analysis:<table>``).

The relay serves each seat's analysis once (docs/protocol.md, "analyse"): the browser that holds the seat's
token keeps what it got, so that the end screen shown again (a reload) and the replay viewer show it again.
It is shown only while this browser still holds that table's seat token (``lexio:<table>``): nobody else
sees it. At most :data:`KEEP` analyses are kept (the oldest go first): every ``lexio:*`` key is read at start.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from app.payloads import AnalysisMove
    from app.state import UiState

__all__ = ["KEEP", "PREFIX", "decode", "encode", "keep", "load", "restore", "to_drop"]

PREFIX = "lexio:analysis:"
KEEP = 30


def encode(seat: int, moves: list[AnalysisMove], at: int) -> str:
    """The stored form of seat ``seat``'s analysis, served at ``at`` (ms, for pruning)."""
    return json.dumps({"seat": seat, "moves": moves, "at": at}, separators=(",", ":"))


def decode(text: str | None) -> tuple[int, list[AnalysisMove], int] | None:
    """(seat, moves, at) from :func:`encode`'s text; None if missing or unreadable (never raises)."""
    if not text:
        return None
    try:
        d = json.loads(text)
    except ValueError:
        return None
    if not isinstance(d, dict):
        return None
    seat, moves, at = d.get("seat"), d.get("moves"), d.get("at", 0)
    if not isinstance(seat, int) or isinstance(seat, bool) or not isinstance(moves, list):
        return None
    kept = [cast("AnalysisMove", m) for m in moves if isinstance(m, dict)]
    return seat, kept, at if isinstance(at, int) else 0


def load(storage: Mapping[str, str], table: str | None) -> tuple[int, list[AnalysisMove]] | None:
    """The analysis kept for ``table``, only while this browser holds the table's seat token."""
    if not table or not storage.get("lexio:" + table):
        return None
    got = decode(storage.get(PREFIX + table))
    return None if got is None else (got[0], got[1])


def to_drop(storage: Mapping[str, str]) -> list[str]:
    """Keys to remove so that at most :data:`KEEP` analyses stay (the oldest first), and those whose table
    this browser no longer holds a seat for."""
    kept: list[tuple[int, str]] = []
    drop = []
    for key, value in storage.items():
        if not key.startswith(PREFIX):
            continue
        got = decode(value)
        if got is None or not storage.get("lexio:" + key[len(PREFIX) :]):
            drop.append(key)
        else:
            kept.append((got[2], key))
    kept.sort(reverse=True)
    return sorted(drop + [key for _, key in kept[KEEP:]])


def restore(state: UiState, storage: Mapping[str, str]) -> bool:
    """On the end screen, the analysis this browser was served for this table and seat (a reload, or
    after the replay viewer asked for it): shown again instead of a button the relay would refuse."""
    if state.screen != "end" or state.seat is None or state.analysis is not None or state.analysis_pending:
        return False
    got = load(storage, state.table_id)
    if got is None or got[0] != state.seat:
        return False
    state.analysis = got[1]
    state.analysis_error = None
    return True


def keep(
    storage: Mapping[str, str], table: str, seat: int, moves: list[AnalysisMove], at: int
) -> dict[str, str | None]:
    """What to write to keep seat ``seat``'s analysis of ``table`` served at ``at`` (ms): its key, then the
    keys :func:`to_drop` names once it is kept (None: remove), in that order."""
    key, value = PREFIX + table, encode(seat, moves, at)
    writes: dict[str, str | None] = {key: value}
    for old in to_drop({**storage, key: value}):
        writes[old] = None
    return writes
