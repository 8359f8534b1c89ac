"""The end of the game and its arithmetic, for 2, 3 and 4 players: out, scoreless, negatives, ties."""

from __future__ import annotations

import pytest
from engine_testkit import T0, step, table

from engine import GameEnded, GameState, Pass, Place, Placed, Play, Swap, TimeoutPass, parse_move, view


def play(state: GameState, text: str) -> tuple[GameState, list[object]]:
    move = parse_move(text, state.board)
    assert isinstance(move, Place)
    assert state.turn is not None
    after, events = step(state, Play(state.turn, move))
    return after, list(events)


def pass_round(state: GameState, turns: int) -> GameState:
    for _ in range(turns):
        assert state.turn is not None
        state, _ = step(state, Play(state.turn, Pass()))
    return state


def test_playing_the_last_tile_with_an_empty_bag_ends_the_game_and_the_finisher_takes_the_others_racks() -> (
    None
):
    # 2 players: P0 plays LE (2 points) and is out; P1 holds K Z ? = 20, the blank costing nothing.
    state = table(["LE", "KZ?"], "")
    after, events = play(state, "7F LE")
    placed, ended = events
    assert isinstance(placed, Placed) and isinstance(ended, GameEnded)
    assert ended.reason == "out" and ended.adjustments == (20, -20)
    assert ended.scores == (2 + 20, -20) and ended.winners == (0,)
    assert ended.racks == ("", "KZ?")
    assert after.status == "ended" and [s.score for s in after.seats] == [22, -20]
    assert after.turn is None and after.result == ended


def test_out_with_three_players_everyone_loses_their_rack_and_a_score_can_go_negative() -> None:
    state = table(["LE", "K", "?A"], "")
    _, events = play(state, "7F LE")
    ended = events[-1]
    assert isinstance(ended, GameEnded)
    assert ended.adjustments == (10 + 1, -10, -1) and ended.scores == (13, -10, -1)
    assert ended.winners == (0,)


def test_out_with_four_players() -> None:
    state = table(["LE", "Q", "ZY", "??"], "")
    _, events = play(state, "7F LE")
    ended = events[-1]
    assert isinstance(ended, GameEnded)
    assert ended.adjustments == (8 + 20 + 0, -8, -20, 0) and ended.scores == (30, -8, -20, 0)


def test_the_game_does_not_end_while_the_bag_still_has_tiles() -> None:
    state = table(["LE", "KZ"], "A")
    after, events = play(state, "7F LE")
    assert len(events) == 1 and after.status == "playing" and after.seats[0].rack == "A"


@pytest.mark.parametrize("players", [2, 3, 4])
def test_two_rounds_of_the_table_without_a_single_play_end_the_game(players: int) -> None:
    racks = ["AB", "CD", "EF", "GH"][:players]
    state = table(racks, "XYZ")
    state = pass_round(state, 2 * players - 1)
    assert state.status == "playing" and state.scoreless_turns == 2 * players - 1
    assert state.turn is not None
    state, events = step(state, Play(state.turn, Pass()))
    ended = events[-1]
    assert isinstance(ended, GameEnded) and ended.reason == "scoreless"
    values = {"AB": 4, "CD": 4, "EF": 5, "GH": 7}
    assert ended.adjustments == tuple(-values[r] for r in racks)
    assert ended.scores == ended.adjustments  # nobody takes anything


def test_swaps_and_timeouts_count_as_turns_without_a_play_and_a_placement_resets_the_count() -> None:
    state = table(["LEXXX", "AB", "CD"], "QRSTUVWXYZ")
    state, _ = step(state, Play(0, Swap("X")))
    state, _ = step(state, TimeoutPass(1))
    assert state.scoreless_turns == 2
    state = pass_round(state, 1)
    state, _ = play(state, "7F LE")
    assert state.scoreless_turns == 0
    state = pass_round(state, 5)
    assert state.status == "playing"
    state = pass_round(state, 1)
    assert state.status == "ended" and state.result is not None and state.result.reason == "scoreless"


@pytest.mark.parametrize("last", ["timeout", "swap"])
def test_a_timeout_or_a_swap_can_complete_the_two_scoreless_rounds(last: str) -> None:
    state = pass_round(table(["AB", "CD"], "XYZ"), 3)
    command = TimeoutPass(1) if last == "timeout" else Play(1, Swap("C"))
    state, events = step(state, command)
    assert len(events) == 2 and isinstance(events[-1], GameEnded)
    assert events[-1].reason == "scoreless" and state.status == "ended"


def test_in_a_tie_the_win_is_shared() -> None:
    state = pass_round(table(["A", "E"], ""), 4)
    assert state.result is not None
    assert state.result.scores == (-1, -1) and state.result.winners == (0, 1)
    state = pass_round(table(["A", "K", "?"], ""), 6)
    assert state.result is not None and state.result.winners == (2,) and state.result.scores == (-1, -10, 0)


def test_a_tie_on_top_among_four_players_is_shared_by_all_of_them() -> None:
    state = pass_round(table(["A", "E", "I", "K"], ""), 8)
    assert state.result is not None
    assert state.result.scores == (-1, -1, -1, -10) and state.result.winners == (0, 1, 2)


def test_a_finisher_with_empty_racks_around_gains_nothing_more() -> None:
    state = table(["LE", "", "", ""], "")
    _, events = play(state, "7F LE")
    ended = events[-1]
    assert isinstance(ended, GameEnded)
    assert ended.adjustments == (0, 0, 0, 0) and ended.scores == (2, 0, 0, 0) and ended.winners == (0,)


def test_at_the_end_all_the_racks_are_turned_face_up() -> None:
    state = table(["LE", "KZ?"], "")
    before = view(state, 0, now_ms=T0)
    assert [s["rack"] for s in before["seats"]] == [None, None] and before["rack"] == "LE"
    after, _ = play(state, "7F LE")
    for seat in (0, 1, None):
        v = view(after, seat, now_ms=T0 + 2_000)
        assert [s["rack"] for s in v["seats"]] == ["", "KZ?"]
        assert v["result"]["racks"] == ["", "KZ?"] and v["status"] == "ended"
