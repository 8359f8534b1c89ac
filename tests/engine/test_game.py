"""The game: seating, turns, placing, swapping, passing, the clock's pass, the word list and the reserve."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import replace

import pytest
from engine_testkit import T0, accept_all, knows_no, seated_game, step, table

from engine import (
    CreateTable,
    GameStarted,
    GameState,
    Join,
    Leave,
    Pass,
    Passed,
    Place,
    Placed,
    Play,
    Rejected,
    SeatJoined,
    SeatLeft,
    Start,
    Swap,
    Swapped,
    TableCreated,
    Tile,
    TimedOut,
    TimeoutPass,
    decide,
    event_from_dict,
    event_to_dict,
    new_state,
    parse_move,
    reserve_at,
)
from engine.errors import (
    AlreadyStarted,
    BadName,
    BadSeat,
    BadSetting,
    BadSwap,
    GameOver,
    Gap,
    InputError,
    NotEnoughPlayers,
    NotFirstSeat,
    NotOnRack,
    NotStarted,
    NotYourTurn,
    ReserveEmpty,
    SwapTooLarge,
    TableExists,
    UnknownVariant,
)


def place(state: GameState, text: str) -> Place:
    move = parse_move(text, state.board)
    assert isinstance(move, Place)
    return move


def waiting(*names: str) -> GameState:
    state, _ = step(new_state(), CreateTable())
    for n in names:
        state, _ = step(state, Join(n))
    return state


# -- seats ------------------------------------------------------------------------------------------------
def test_seats_are_taken_in_order_of_arrival() -> None:
    state = waiting("Alice", "Bob", "Chloé")
    assert [s.name for s in state.seats] == ["Alice", "Bob", "Chloé"]
    assert state.status == "waiting" and state.turn is None


def test_the_first_player_to_arrive_opens_the_game() -> None:
    state = waiting("Alice", "Bob")
    with pytest.raises(NotFirstSeat) as err:
        step(state, Start(1))
    assert err.value.params == {"seat": 1}
    state, events = step(state, Start(0))
    assert isinstance(events[0], GameStarted) and state.status == "playing" and state.turn == 0


def test_two_to_four_players_and_a_fourth_arrival_starts_the_game_by_itself() -> None:
    with pytest.raises(NotEnoughPlayers):
        step(waiting("Alice"), Start(0))
    state, events = step(waiting("A", "B", "C"), Join("D"))
    assert [type(e) for e in events] == [SeatJoined, GameStarted] and state.status == "playing"
    with pytest.raises(AlreadyStarted):
        step(state, Join("E"))


def test_before_the_start_a_leaving_player_frees_the_seat_and_later_arrivals_move_up() -> None:
    state, events = step(waiting("A", "B", "C"), Leave(1))
    assert events == [SeatLeft(1, at=T0 + 1_000)]
    assert [s.name for s in state.seats] == ["A", "C"]
    with pytest.raises(BadSeat):
        step(state, Leave(2))
    started, _ = step(state, Start(0))
    with pytest.raises(AlreadyStarted):
        step(started, Leave(1))


def test_names_must_be_printable_and_distinct() -> None:
    state = waiting("Alice")
    for bad in ("", "   ", "x" * 25, "a\nb"):
        with pytest.raises(BadName):
            step(state, Join(bad))
    with pytest.raises(BadName) as err:
        step(state, Join(" ALICE "))
    assert err.value.params["reason"] == "taken"


def test_table_settings_are_checked() -> None:
    with pytest.raises(UnknownVariant):
        step(new_state(), CreateTable("scrabble"))
    for secs in (29, 601):
        with pytest.raises(BadSetting):
            step(new_state(), CreateTable(turn_seconds=secs))
    for secs in (30, 600):
        assert step(new_state(), CreateTable(turn_seconds=secs))[0].turn_seconds == secs
    state, events = step(new_state(), CreateTable("classic", 30))
    assert events == [TableCreated("classic", 30, at=T0 + 1_000)] and state.board.variant.name == "classic"
    with pytest.raises(TableExists):
        step(state, CreateTable())
    with pytest.raises(NotStarted):
        step(new_state(), Join("A"))


def test_everyone_draws_seven_tiles() -> None:
    state = seated_game(3, seed=1)
    assert [len(s.rack) for s in state.seats] == [7, 7, 7] and len(state.bag) == 102 - 21


# -- turns ------------------------------------------------------------------------------------------------
def test_turns_follow_the_order_of_arrival() -> None:
    state = seated_game(3)
    order = []
    for _ in range(5):
        seat = state.turn
        assert seat is not None
        order.append(seat)
        state, _ = step(state, Play(seat, Pass()))
    assert order == [0, 1, 2, 0, 1]


def test_a_seat_must_be_a_seat_number_not_a_lookalike() -> None:
    state = table(["AB", "CD"], "EFG")
    state, _ = step(state, Play(0, Pass()))  # seat 1 on turn: True == 1 must not pass for it
    for seat in (True, "1", 1.0, None):
        with pytest.raises(BadSeat):
            step(state, Play(seat, Pass()))  # type: ignore[arg-type]
        with pytest.raises(BadSeat):
            step(state, TimeoutPass(seat))  # type: ignore[arg-type]
    _, events = step(state, Play(1, Pass()))
    assert events == [Passed(1, at=T0 + 1_000)] and type(events[0].seat) is int


def test_only_the_player_on_turn_may_act() -> None:
    state = seated_game(2)
    with pytest.raises(NotYourTurn) as err:
        step(state, Play(1, Pass()))
    assert err.value.params == {"seat": "1", "turn": 0} and "seat 0" in err.value.message
    with pytest.raises(NotYourTurn):
        step(state, TimeoutPass(1))
    with pytest.raises(NotStarted):
        step(waiting("A", "B"), Play(0, Pass()))


def test_passing_is_always_allowed_scores_nothing_and_ends_the_turn() -> None:
    state = table(["AB", "CD"], "EFG")
    after, events = step(state, Play(0, Pass()))
    assert events == [Passed(0, at=T0 + 1_000)]
    assert after.turn == 1 and after.seats[0].score == 0 and after.seats[0].rack == "AB"
    assert after.turn_started_ms == T0 + 1_000


def test_once_the_time_is_up_the_table_passes_for_you_and_never_plays_a_word() -> None:
    state = table(["AB", "CD"], "EFG")
    after, events = step(state, TimeoutPass(0))
    assert events == [TimedOut(0, at=T0 + 1_000)] and after.turn == 1 and after.board.is_empty
    assert after.scoreless_turns == 1


# -- placing ----------------------------------------------------------------------------------------------
def test_an_accepted_play_scores_and_refills_the_rack_from_the_bag() -> None:
    state = table(["MAISONZ", "ABCDEFG"], "XYQ")
    after, events = step(state, Play(0, place(state, "7E MAISON")))
    (placed,) = events
    assert isinstance(placed, Placed)
    assert (placed.words, placed.score, placed.drawn, placed.bag, placed.rack) == (
        ("MAISON",),
        7,
        "XYQ",
        "",
        "ZXYQ",
    )
    assert after.seats[0].score == 7 and after.seats[0].rack == "ZXYQ" and after.bag == ()
    assert after.board["G7"] == "I" and after.turn == 1


def test_the_refill_stops_when_the_bag_is_empty() -> None:
    state = table(["MAISONZ", "ABCDEFG"], "")
    after, events = step(state, Play(0, place(state, "7E MAISON")))
    assert isinstance(events[0], Placed) and events[0].drawn == "" and after.seats[0].rack == "Z"


def test_a_blank_is_played_from_the_rack_and_keeps_its_letter() -> None:
    state = table(["MA?SONE", "ABCDEFG"], "")
    after, _ = step(state, Play(0, place(state, "7E MAiSON")))
    tile = after.board.get("G7")
    assert tile == Tile("G7", "I", True) and after.seats[0].score == 6


def test_a_played_blank_is_journalled_in_one_canonical_form() -> None:
    # analyse accepts a blank's letter in lower case and any truthy flag; the journal must not keep either,
    # or the event would not come back equal from its JSON form.
    state = table(["?AISONE", "ABCDEFG"], "")
    move = Place((Tile("G7", "m", 1), Tile("H7", "A")))  # type: ignore[arg-type]
    after, (placed,) = step(state, Play(0, move))
    assert isinstance(placed, Placed)
    assert placed.tiles == (Tile("G7", "M", True), Tile("H7", "A", False))
    assert all(type(t.blank) is bool for t in placed.tiles)
    assert event_from_dict(json.loads(json.dumps(event_to_dict(placed)))) == placed
    assert after.board.get("G7") == Tile("G7", "M", True) and after.seats[0].rack == "ISONE"
    _, (rejected,) = step(state, Play(0, move), lexicon=knows_no("MA"))
    assert isinstance(rejected, Rejected) and rejected.tiles == placed.tiles


def test_tiles_not_on_the_rack_are_refused_by_name() -> None:
    state = table(["MAISOZ", "ABCDEFG"], "")
    with pytest.raises(NotOnRack) as err:
        step(state, Play(0, place(state, "7E MAISON")))
    assert err.value.params == {"tiles": "N", "rack": "MAISOZ"} and "N" in err.value.message
    with pytest.raises(NotOnRack):  # a blank must come from a '?' on the rack
        step(state, Play(0, place(state, "7E MAiSOz")))


def test_a_shape_error_costs_nothing_and_changes_nothing() -> None:
    state = table(["MAISONZ", "ABCDEFG"], "")
    with pytest.raises(Gap):
        step(state, Play(0, Place((Tile("G7", "M"), Tile("I7", "A")))))
    assert reserve_at(state, 0, T0 + 1_000) == (10, None)


def test_a_placement_is_checked_for_shape_then_rack_then_reserve_then_words() -> None:
    state, now = rejected_n_times(10)  # no try left
    with pytest.raises(Gap):  # ill-shaped and not on the rack: the shape is named first
        step(state, Play(0, Place((Tile("G7", "Q"), Tile("I7", "Q")))), now_ms=now)
    with pytest.raises(NotOnRack):  # well shaped, not on the rack, no try left: the rack is named
        step(state, Play(0, place(state, "7G QI")), now_ms=now)
    with pytest.raises(ReserveEmpty):
        step(state, Play(0, place(state, "7E MAISON")), now_ms=now)


def test_unknown_words_are_named_once_each() -> None:
    state = table(["ASSETXX", "MAISONX"], "")
    state, _ = step(state, Play(0, Pass()))
    state, _ = step(state, Play(1, place(state, "7E MAISON")))
    _, (rejected,) = step(state, Play(0, place(state, "8E ASSET")), lexicon=lambda words: ["SE", "OT", "SE"])
    assert isinstance(rejected, Rejected) and rejected.unknown == ("SE", "OT")


def test_every_word_of_the_play_is_checked_including_the_crosswise_ones() -> None:
    seen: list[Sequence[str]] = []

    def lexicon(words: Sequence[str]) -> list[str]:
        seen.append(list(words))
        return []

    state = table(["ASSETXX", "MAISONX"], "")
    state, _ = step(state, Play(0, Pass()))
    state, _ = step(state, Play(1, place(state, "7E MAISON")))
    step(state, Play(0, place(state, "8E ASSET")), lexicon=lexicon)
    assert seen[-1] == ["ASSET", "MA", "AS", "IS", "SE", "OT"]


def test_a_play_with_unknown_words_is_rejected_naming_each_and_it_is_still_your_turn() -> None:
    state = table(["ASSETXX", "MAISONX"], "")
    state, _ = step(state, Play(0, Pass()))
    state, _ = step(state, Play(1, place(state, "7E MAISON")))
    lexicon = knows_no("OT", "MA", "ZZZ")
    after, events = step(state, Play(0, place(state, "8E ASSET")), lexicon=lexicon, now_ms=T0 + 5_000)
    (rejected,) = events
    assert isinstance(rejected, Rejected) and rejected.unknown == ("MA", "OT")
    assert after.turn == 0 and after.seats[0].score == 0 and after.seats[0].rack == "ASSETXX"
    assert after.board == state.board and after.turn_started_ms == state.turn_started_ms
    assert after.scoreless_turns == state.scoreless_turns


# -- the reserve ------------------------------------------------------------------------------------------
def rejected_n_times(n: int, *, every_ms: int = 0) -> tuple[GameState, int]:
    state = table(["MAISONX", "ABCDEFG"], "")
    now = T0
    for _ in range(n):
        now += every_ms
        state, events = step(
            state, Play(0, place(state, "7E MAISON")), lexicon=knows_no("MAISON"), now_ms=now
        )
        assert isinstance(events[0], Rejected)
    return state, now


def test_each_player_has_a_reserve_of_ten_rejected_plays() -> None:
    state, now = rejected_n_times(10)
    assert reserve_at(state, 0, now) == (0, now + 15_000)
    assert reserve_at(state, 1, now) == (10, None)


def test_with_no_tries_left_plays_are_rejected_even_valid_ones_without_a_lookup() -> None:
    state, now = rejected_n_times(10)

    def lexicon(words: Sequence[str]) -> list[str]:
        raise AssertionError("the word list must not be consulted with an empty reserve")

    with pytest.raises(ReserveEmpty) as err:
        step(state, Play(0, place(state, "7E MAISON")), lexicon=lexicon, now_ms=now)
    assert err.value.params == {"next_refill_ms": now + 15_000}


def test_swapping_and_passing_remain_possible_with_no_tries_left() -> None:
    state, now = rejected_n_times(10)
    state = replace(state, bag=("E", "E", "E"))  # give the bag something to swap with
    after, events = step(state, Play(0, Swap("X")), now_ms=now)
    assert isinstance(events[0], Swapped)
    after, events = step(after, Play(1, Pass()), now_ms=now)
    assert isinstance(events[0], Passed)


def test_the_reserve_gets_one_try_back_every_fifteen_seconds() -> None:
    state, _ = rejected_n_times(3)  # all at T0: 7 left, refilling from T0
    assert reserve_at(state, 0, T0 + 14_999) == (7, T0 + 15_000)
    assert reserve_at(state, 0, T0 + 15_000) == (8, T0 + 30_000)
    assert reserve_at(state, 0, T0 + 45_000) == (10, None)
    assert reserve_at(state, 0, T0 + 10**9) == (10, None)


def test_a_refill_in_progress_is_kept_across_a_new_rejection() -> None:
    state, _ = rejected_n_times(2)  # 8 left at T0
    state, events = step(
        state, Play(0, place(state, "7E MAISON")), lexicon=knows_no("MAISON"), now_ms=T0 + 20_000
    )
    assert isinstance(events[0], Rejected)
    # at T0+20000: 9 (one refill at T0+15000), minus one = 8; the next refill is still T0+30000
    assert reserve_at(state, 0, T0 + 20_000) == (8, T0 + 30_000)


def test_a_full_reserve_does_not_bank_time_the_first_rejection_starts_the_refill_clock() -> None:
    state = table(["MAISONX", "ABCDEFG"], "")  # seated at T0, reserve full since then
    state, events = step(
        state, Play(0, place(state, "7E MAISON")), lexicon=knows_no("MAISON"), now_ms=T0 + 20_000
    )
    assert isinstance(events[0], Rejected)
    assert reserve_at(state, 0, T0 + 20_000) == (9, T0 + 35_000)
    assert reserve_at(state, 0, T0 + 34_999) == (9, T0 + 35_000)
    assert reserve_at(state, 0, T0 + 35_000) == (10, None)


def test_a_reserve_refilled_to_ten_restarts_its_clock_at_the_next_rejection() -> None:
    state, _ = rejected_n_times(1)  # 9 at T0; back to 10 at T0+15000, and full from then on
    assert reserve_at(state, 0, T0 + 15_000) == (10, None)
    state, events = step(
        state, Play(0, place(state, "7E MAISON")), lexicon=knows_no("MAISON"), now_ms=T0 + 20_000
    )
    assert isinstance(events[0], Rejected)
    # the 5 s spent full earn nothing: the next try comes back 15 s after this rejection
    assert reserve_at(state, 0, T0 + 20_000) == (9, T0 + 35_000)
    assert reserve_at(state, 0, T0 + 30_000) == (9, T0 + 35_000)


def test_an_accepted_play_gives_no_try_back() -> None:
    state, now = rejected_n_times(2)
    after, events = step(state, Play(0, place(state, "7E MAISON")), now_ms=now)
    assert isinstance(events[0], Placed)
    assert reserve_at(after, 0, now) == reserve_at(state, 0, now) == (8, now + 15_000)


# -- swapping ---------------------------------------------------------------------------------------------
def test_a_swap_draws_first_then_mixes_the_returned_tiles_into_the_bag() -> None:
    state = table(["ABCDEFG", "HIJKLMN"], "OPQRSTUVW")
    after, events = step(state, Play(0, Swap("AB?"[:2])), rng=random.Random(3))
    (swapped,) = events
    assert isinstance(swapped, Swapped)
    assert (swapped.returned, swapped.drawn) == ("AB", "OP")  # the front of the bag, not A or B
    assert sorted(swapped.bag) == sorted("QRSTUVWAB") and swapped.rack == "CDEFGOP"
    assert after.seats[0].rack == "CDEFGOP" and after.bag == tuple(swapped.bag) and after.turn == 1


def test_the_bag_is_mixed_again_with_the_returned_tiles() -> None:
    state = table(["ABCDEFG", "HIJKLMN"], "OPQRSTUVW")
    where = set()
    for seed in range(20):
        _, (swapped,) = step(state, Play(0, Swap("AB")), rng=random.Random(seed))
        assert isinstance(swapped, Swapped) and swapped.drawn == "OP"
        where.add((swapped.bag.index("A"), swapped.bag.index("B")))
    assert len(where) > 5  # not simply put back at the bottom (or anywhere fixed)


def test_a_swap_needs_as_many_tiles_in_the_bag_as_are_returned() -> None:
    state = table(["ABCDEFG", "HIJKLMN"], "OP")
    with pytest.raises(SwapTooLarge) as err:
        step(state, Play(0, Swap("ABC")))
    assert err.value.params == {"count": 3, "bag": 2}
    after, _ = step(state, Play(0, Swap("AB")))
    assert after.seats[0].rack == "CDEFGOP"


def test_a_swap_returns_one_tile_up_to_the_whole_rack_and_only_tiles_on_it() -> None:
    state = table(["ABCDEFG", "HIJKLMN"], "OPQRSTUVWXYZ")
    for bad in ("", "ab", "A1"):
        with pytest.raises(BadSwap):
            step(state, Play(0, Swap(bad)))
    with pytest.raises(NotOnRack):
        step(state, Play(0, Swap("AA")))
    after, _ = step(state, Play(0, Swap("ABCDEFG")))
    assert after.seats[0].rack == "OPQRSTU"


# -- after the end ----------------------------------------------------------------------------------------
def test_nothing_can_be_played_once_the_game_is_over() -> None:
    state = table(["A", "B"], "")
    for _ in range(4):
        assert state.turn is not None
        state, _ = step(state, Play(state.turn, Pass()))
    assert state.status == "ended"
    for command in (Play(0, Pass()), TimeoutPass(0), Join("X"), Start(0), Leave(0)):
        with pytest.raises(GameOver):
            step(state, command)


def test_decide_never_changes_the_state_it_is_given() -> None:
    state = table(["MAISONX", "ABCDEFG"], "")
    frozen = repr(state), state.events
    decide(state, Play(0, place(state, "7E MAISON")), now_ms=T0, rng=random.Random(0), lexicon=accept_all)
    assert (repr(state), state.events) == frozen


def test_anything_that_is_not_a_command_or_a_move_is_refused_with_a_code() -> None:
    state = table(["AB", "CD"], "")
    with pytest.raises(InputError):
        decide(state, "pass", now_ms=T0, rng=random.Random(0), lexicon=accept_all)  # type: ignore[arg-type]
    with pytest.raises(InputError):
        step(state, Play(0, "-"))  # type: ignore[arg-type]
