"""Shared helpers for the engine tests: hand-built tables and a seeded random player.

Nothing here stands in for a part of the engine: every state is produced by the engine's own decide/apply.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from pathlib import Path

from engine import (
    Board,
    Command,
    CreateTable,
    Event,
    GameStarted,
    GameState,
    Join,
    Lexicon,
    LexioError,
    Pass,
    Place,
    Play,
    SeatJoined,
    Start,
    Swap,
    TableCreated,
    Tile,
    TimeoutPass,
    apply,
    decide,
    new_state,
    parse_move,
    replay,
)
from engine.errors import ShapeError

DOCS = Path(__file__).resolve().parents[2] / "docs"
T0 = 1_764_000_000_000  # an arbitrary epoch-ms "now" for hand-built games


def accept_all(words: Sequence[str]) -> list[str]:
    """A word list that knows every word (the tests that need unknown words say which ones)."""
    return []


def knows_no(*unknown: str) -> Lexicon:
    """A word list missing exactly ``unknown``."""

    def lexicon(words: Sequence[str]) -> list[str]:
        return [w for w in words if w in unknown]

    return lexicon


def reject_with_q(words: Sequence[str]) -> list[str]:
    """A word list that knows every word without a Q: random games then meet rejections too."""
    return [w for w in words if "Q" in w]


def put(board: Board, *moves: str) -> Board:
    """Lay notation onto a board without any rule check (to set up positions)."""
    for text in moves:
        move = parse_move(text, board)
        assert isinstance(move, Place)
        board = board.with_tiles(move.tiles)
    return board


def tiles(board: Board, text: str) -> tuple[Tile, ...]:
    move = parse_move(text, board)
    assert isinstance(move, Place)
    return move.tiles


def table(racks: Sequence[str], bag: str = "", *, variant: str = "lexio", at: int = T0) -> GameState:
    """A started game with chosen racks and bag (the journal a real start would have written, hand-picked)."""
    events: list[Event] = [TableCreated(variant, 120, at=at)]
    events += [SeatJoined(i, f"P{i}", None, at=at) for i in range(len(racks))]
    events.append(GameStarted(bag, tuple(racks), at=at))
    return replay(events)


def step(
    state: GameState,
    command: Command,
    *,
    now_ms: int = T0 + 1_000,
    rng: random.Random | None = None,
    lexicon: Lexicon = accept_all,
) -> tuple[GameState, list[Event]]:
    """decide + apply; returns the new state and the events."""
    events = decide(state, command, now_ms=now_ms, rng=rng or random.Random(0), lexicon=lexicon)
    for e in events:
        state = apply(state, e)
    return state, events


def seated_game(players: int, *, seed: int = 0, variant: str = "lexio", now_ms: int = T0) -> GameState:
    rng = random.Random(seed)
    state, _ = step(new_state(), CreateTable(variant), now_ms=now_ms, rng=rng)
    for i in range(players):
        state, _ = step(state, Join(f"P{i}"), now_ms=now_ms, rng=rng)
    if state.status == "waiting":
        state, _ = step(state, Start(0), now_ms=now_ms, rng=rng)
    return state


def random_placement(state: GameState, rng: random.Random) -> Place:
    """A placement from the rack of the seat on turn, next to the tiles already down: often well shaped."""
    v = state.rules
    cells = state.board.cells
    rack = list(state.seats[state.turn or 0].rack)
    rng.shuffle(rack)
    if state.board.is_empty:
        anchor = v.source_index
    else:
        empties = [
            i
            for i, c in enumerate(cells)
            if c is None
            and v.playable[i]
            and any(n != -1 and cells[n] is not None for n in (v.left[i], v.right[i], v.up[i], v.down[i]))
        ]
        anchor = rng.choice(empties) if empties else v.source_index
    across = rng.random() < 0.5
    back, fwd = (v.left, v.right) if across else (v.up, v.down)
    start = anchor
    for _ in range(rng.randrange(0, 4)):
        if back[start] != -1 and cells[back[start]] is None:
            start = back[start]
    count = rng.randint(1, max(1, len(rack)))
    out: list[Tile] = []
    i = start
    while i != -1 and len(out) < count and rack:
        if cells[i] is None:
            t = rack.pop()
            if t == "?":
                out.append(Tile(v.names[i], rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ"), True))
            else:
                out.append(Tile(v.names[i], t))
        i = fwd[i]
    return Place(tuple(out))


def random_game(
    seed: int,
    players: int,
    *,
    variant: str = "lexio",
    lexicon: Lexicon = reject_with_q,
    max_steps: int = 500,
) -> Iterator[tuple[GameState, Command, list[Event], GameState]]:
    """Play a seeded random game to its end; yields (before, command, events, after) per accepted command.

    Commands the engine refuses for their shape or an empty reserve are skipped (they change nothing);
    any other refusal is a bug in this player and is raised.
    """
    rng = random.Random(seed)
    state = seated_game(players, seed=seed, variant=variant)
    now = T0 + 1_000
    for _ in range(max_steps):
        if state.status != "playing":
            return
        now += rng.randrange(0, 30_000)
        seat = state.turn
        assert seat is not None
        roll = rng.random()
        rack = state.seats[seat].rack
        command: Command
        if roll < 0.8 and rack:
            command = Play(seat, random_placement(state, rng))
        elif roll < 0.88 and rack and state.bag:
            k = rng.randint(1, min(len(rack), len(state.bag)))
            command = Play(seat, Swap("".join(rng.sample(rack, k))))
        elif roll < 0.96:
            command = Play(seat, Pass())
        else:
            command = TimeoutPass(seat)
        try:
            events = decide(state, command, now_ms=now, rng=rng, lexicon=lexicon)
        except ShapeError:
            continue
        except LexioError as err:
            if err.code == "reserve_empty":
                continue
            raise
        before = state
        for e in events:
            state = apply(state, e)
        yield before, command, events, state
