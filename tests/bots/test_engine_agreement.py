"""On the real Lexio board with the shipped French list, the engine's own referee (``decide``) accepts every
placement the generator lists, with the same score; and computer-only games run to their end through it."""

from __future__ import annotations

import random

import pytest

from engine.events import GameEnded, Placed, Rejected
from engine.game import CreateTable, GameState, Join, Play, Start, apply, decide, new_state
from engine.moves import Place, Swap
from engine.views import view
from relay.bots.graph import WordGraph
from relay.bots.movegen import generate
from relay.bots.player import MoveGenDriver
from relay.lexicon import WordList

NOW = 1_764_000_000_000


def run(
    state: GameState, command: object, words: WordList, rng: random.Random
) -> tuple[GameState, list[object]]:
    events = decide(state, command, now_ms=NOW, rng=rng, lexicon=words)  # type: ignore[arg-type]
    for event in events:
        state = apply(state, event)
    return state, list(events)


def seated(words: WordList, rng: random.Random, names: list[tuple[str, str | None]]) -> GameState:
    state, _ = run(new_state(), CreateTable(), words, rng)
    for name, bot in names:
        state, _ = run(state, Join(name, bot=bot), words, rng)
    if state.status == "waiting":
        state, _ = run(state, Start(0), words, rng)
    return state


@pytest.mark.parametrize("seed", [1, 2])
def test_the_referee_accepts_every_generated_placement_with_its_score(
    seed: int, fr_words: WordList, fr_graph: WordGraph
) -> None:
    rng = random.Random(seed)
    state = seated(fr_words, rng, [("A", None), ("B", None)])
    checked = 0
    for _turn in range(8):
        seat = state.turn
        assert seat is not None
        moves = generate(state.board, state.seats[seat].rack, fr_graph).moves
        for move in moves:
            events = decide(
                state, Play(seat, move.to_place(state.rules)), now_ms=NOW, rng=rng, lexicon=fr_words
            )
            placed = events[0]
            assert isinstance(placed, Placed), (move, events)
            assert placed.score == move.score
            checked += 1
        if not moves:
            state, _ = run(state, Play(seat, Swap(state.seats[seat].rack)), fr_words, rng)
            continue
        best = max(moves, key=lambda m: (m.score, m.tiles))
        state, _ = run(state, Play(seat, best.to_place(state.rules)), fr_words, rng)
    assert checked > 100


@pytest.mark.parametrize(
    ("seed", "levels"),
    [(3, ["strong", "easy"]), (4, ["medium", "strong", "easy"]), (5, ["easy", "medium", "strong", "strong"])],
)
def test_a_computer_only_game_ends_with_every_move_accepted_and_the_tiles_and_scores_consistent(
    seed: int, levels: list[str], fr_words: WordList
) -> None:
    rng = random.Random(seed)
    driver = MoveGenDriver(fr_words)
    state = seated(fr_words, rng, [(f"Robot {i}", lvl) for i, lvl in enumerate(levels)])
    total_tiles = state.rules.tile_count
    placements = 0
    for _turn in range(400):
        if state.status == "ended":
            break
        seat = state.turn
        assert seat is not None
        move = driver.choose(view(state, seat, now_ms=NOW), levels[seat], rng)
        state, events = run(state, Play(seat, move), fr_words, rng)
        assert not any(isinstance(e, Rejected) for e in events), events
        placements += isinstance(move, Place)
        on_board = len(state.board)
        in_racks = sum(len(s.rack) for s in state.seats)
        assert on_board + in_racks + len(state.bag) == total_tiles
    assert state.status == "ended"
    assert placements > 10
    ended = state.result
    assert isinstance(ended, GameEnded)
    for i, s in enumerate(state.seats):
        journal = sum(e.score for e in state.events if isinstance(e, Placed) and e.seat == i)
        assert s.score == journal + ended.adjustments[i]
