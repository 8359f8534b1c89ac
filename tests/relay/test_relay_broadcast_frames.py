"""The event frames of a broadcast (relay/tables/broadcast.py): the seats a redaction tells more get a frame
of their own, everyone else one shared frame, and that frame is what each of them would have been told."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from relay.tables.broadcast import EVERY_SEAT, seats_told_more


def accept_all(words: Sequence[str]) -> list[str]:
    return []


def refuse_all(words: Sequence[str]) -> list[str]:
    return list(words)


def a_game(seed: int, players: int) -> Iterator[engine.Event]:
    """Every kind of event: seats joining and leaving, a start, placements, refused plays, swaps, passes,
    a time-out and the end (two scoreless rounds)."""
    rng = random.Random(seed)
    state = engine.new_state()

    def do(command: engine.Command, lexicon: engine.Lexicon = accept_all) -> list[engine.Event]:
        nonlocal state
        try:
            events = engine.decide(state, command, now_ms=1000 + state.version, rng=rng, lexicon=lexicon)
        except engine.LexioError:
            return []
        for event in events:
            state = engine.apply(state, event)
        return events

    yield from do(engine.CreateTable())
    names = ["Ana", "Bo", "Cy", "Di"][:players]
    for name in names:
        yield from do(engine.Join(name))
    if players > 2:
        yield from do(engine.Leave(players - 1))
        yield from do(engine.Join("Eve"))
    if state.status == "waiting":
        yield from do(engine.Start(0))
    squares = ["G7", "H7", "I7", "J7", "G8", "G9", "G6", "G5"]
    for n in range(40):
        turn = state.turn
        if turn is None or state.status != "playing":
            break
        rack = state.seats[turn].rack
        kind = rng.choice(["place", "place", "refused", "swap", "pass", "timeout"]) if n < 12 else "pass"
        if kind in ("place", "refused") and len(rack) >= 2:
            free = [sq for sq in squares if state.board.get(sq) is None]
            tiles = tuple(
                engine.Tile(sq, "E" if ch == "?" else ch, ch == "?")
                for sq, ch in zip(free[:2], rack, strict=False)
            )
            got = do(engine.Play(turn, engine.Place(tiles)), accept_all if kind == "place" else refuse_all)
            if got:
                yield from got
                continue
        if kind == "swap" and len(state.bag) >= 7:
            got = do(engine.Play(turn, engine.Swap(rack[:2])))
            if got:
                yield from got
                continue
        if kind == "timeout":
            yield from do(engine.TimeoutPass(turn))
        else:
            yield from do(engine.Play(turn, engine.Pass()))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 100_000), players=st.integers(2, 4))
def test_every_seat_not_told_more_sees_what_a_spectator_sees(seed: int, players: int) -> None:
    kinds = set()
    for event in a_game(seed, players):
        kinds.add(type(event).__name__)
        told = seats_told_more(event)
        spectator = engine.redact_event(event, None)
        for seat in range(engine.MAX_SEATS):
            if told == EVERY_SEAT or seat == told:
                continue
            assert engine.redact_event(event, seat) == spectator, (type(event).__name__, seat)
    assert {"TableCreated", "SeatJoined", "GameStarted", "GameEnded"} <= kinds


def test_the_scripted_games_hold_every_kind_of_event() -> None:
    kinds = {type(e).__name__ for seed in range(8) for e in a_game(seed, 3)}
    assert kinds == {
        "TableCreated",
        "SeatJoined",
        "SeatLeft",
        "GameStarted",
        "Placed",
        "Rejected",
        "Swapped",
        "Passed",
        "TimedOut",
        "GameEnded",
    }
