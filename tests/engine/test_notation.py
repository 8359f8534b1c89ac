"""GCG-style notation: row-then-column across, column-then-row down, '.' played through, lower-case blanks."""

from __future__ import annotations

import pytest
from engine_testkit import put, random_game
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Board, Pass, Place, Swap, Tile, format_move, parse_move
from engine.errors import BadNotation, EmptyPlay, Gap, NotInLine, Occupied, OffBoard

EMPTY = Board.empty("lexio")
OPENED = put(EMPTY, "7E MAISON")


def test_row_then_column_goes_across() -> None:
    move = parse_move("7D WORD", EMPTY)
    assert move == Place((Tile("D7", "W"), Tile("E7", "O"), Tile("F7", "R"), Tile("G7", "D")))


def test_column_then_row_goes_down() -> None:
    move = parse_move("G4 WoRD", EMPTY)
    assert move == Place((Tile("G4", "W"), Tile("G5", "O", True), Tile("G6", "R"), Tile("G7", "D")))


def test_a_dot_a_letter_or_parentheses_stand_for_tiles_already_on_the_board() -> None:
    expected = Place((Tile("E6", "A"), Tile("E8", "E")))
    assert parse_move("E6 A.E", OPENED) == expected
    assert parse_move("E6 AME", OPENED) == expected
    assert parse_move("E6 A(M)E", OPENED) == expected
    assert format_move(expected, OPENED) == "E6 A.E"


def test_pass_and_swap() -> None:
    assert parse_move("-", EMPTY) == Pass() and format_move(Pass(), EMPTY) == "-"
    assert parse_move("-AB?", EMPTY) == Swap("AB?") and format_move(Swap("AB?"), EMPTY) == "-AB?"


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("--", BadNotation),
        ("-ab", BadNotation),
        ("7D", BadNotation),
        ("7D WORD extra", BadNotation),
        ("77 WORD", BadNotation),
        ("7D W1RD", BadNotation),
        ("7D (WO", BadNotation),
        ("7D WO)", BadNotation),
        ("E6 .", BadNotation),  # E6 holds nothing to play through
        ("14A WORD", OffBoard),
        ("7K MAISON", OffBoard),  # runs past M7
        ("7E MAISON", EmptyPlay),  # every square already holds the tile
        ("7E X", Occupied),
    ],
)
def test_malformed_notation_is_refused_with_a_reason_naming_it(text: str, error: type[Exception]) -> None:
    board = OPENED if text.startswith(("E6", "7E")) else EMPTY
    with pytest.raises(error) as info:
        parse_move(text, board)
    assert isinstance(info.value, ValueError)


def test_notation_error_names_the_text() -> None:
    with pytest.raises(BadNotation) as info:
        parse_move("7D W1RD", EMPTY)
    assert "'1'" in info.value.message and info.value.params["text"] == "7D W1RD"


def test_format_refuses_placements_notation_cannot_express() -> None:
    with pytest.raises(NotInLine):
        format_move(Place((Tile("E8", "A"), Tile("F9", "B"))), OPENED)
    with pytest.raises(Gap):
        format_move(Place((Tile("E9", "A"), Tile("G9", "B"))), OPENED)
    with pytest.raises(EmptyPlay):
        format_move(Place(()), OPENED)


def test_a_single_tile_is_written_across_when_it_forms_an_across_word() -> None:
    assert format_move(Place((Tile("K7", "S"),)), OPENED) == "7E ......S"
    assert format_move(Place((Tile("G8", "L"),)), OPENED) == "G7 .L"


def test_place_equality_ignores_the_order_tiles_were_given_in() -> None:
    a, b = Tile("E8", "A"), Tile("F8", "S")
    assert Place((b, a)) == Place((a, b)) and Place((b, a)).tiles == (a, b)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_notation_round_trips_for_every_placement_of_random_games(seed: int) -> None:
    for before, command, _events, _after in random_game(seed, 2, max_steps=120):
        move = getattr(command, "move", None)
        if move is None:
            continue
        text = format_move(move, before.board)
        assert parse_move(text, before.board) == move
        assert format_move(parse_move(text, before.board), before.board) == text
