"""Rules of shape: where tiles may go and which words a placement forms (analyse, the checked entry point)."""

from __future__ import annotations

import pytest
from engine_testkit import put, tiles
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Board, Tile, analyse, check_placement, preview, preview_error
from engine.errors import (
    BadLetter,
    BlankWithoutLetter,
    DuplicateSquare,
    EmptyPlay,
    Gap,
    LexioError,
    MissingSource,
    NotConnected,
    NotInLine,
    NoWord,
    Occupied,
    OffBoard,
    ShapeError,
    TooManyTiles,
    Wall,
)

EMPTY = Board.empty("lexio")
# MAISON across row 7 from E7 to J7 (through the source G7).
OPENED = put(EMPTY, "7E MAISON")


def raises(
    error: type[LexioError], board: Board, placed: tuple[Tile, ...], *, first: bool | None = None
) -> LexioError:
    with pytest.raises(error) as info:
        analyse(board, placed, first_move=first)
    err = info.value
    assert isinstance(err, ShapeError) and isinstance(err, ValueError)
    assert err.code == error.code and err.message == str(err)
    assert err.to_dict() == {"code": err.code, "message": err.message, "params": err.params}
    return err


def test_you_place_one_to_seven_tiles() -> None:
    raises(EmptyPlay, OPENED, ())
    eight = tuple(Tile(f"{c}8", "E") for c in "CDEFGHIJ")
    err = raises(TooManyTiles, OPENED, eight)
    assert err.params == {"count": 8, "limit": 7} and "8 tiles" in err.message
    assert analyse(OPENED, (Tile("G8", "A"),)).tiles == 1
    assert analyse(OPENED, tuple(Tile(f"{c}8", "E") for c in "DEFGHIJ")).tiles == 7


def test_tiles_go_in_a_single_row_or_a_single_column() -> None:
    err = raises(NotInLine, OPENED, (Tile("E8", "A"), Tile("F9", "B")))
    assert "E8" in err.message and "F9" in err.message
    assert analyse(OPENED, tiles(OPENED, "8E AS")).words[0].word == "AS"
    assert analyse(OPENED, tiles(OPENED, "E5 AI.E")).words[0].word == "AIME"


def test_no_empty_square_between_placed_tiles() -> None:
    err = raises(Gap, OPENED, (Tile("E8", "A"), Tile("G8", "B")))
    assert "F8" in err.message and err.params == {"first": "E8", "last": "G8"}


def test_tiles_already_on_the_board_can_fill_the_gap() -> None:
    # D7 and K7 around MAISON: one play, the board fills E7..J7.
    b = analyse(OPENED, (Tile("D7", "E"), Tile("K7", "S")))
    assert [w.word for w in b.words] == ["EMAISONS"] and b.words[0].main


def test_every_tile_goes_on_a_playable_empty_square() -> None:
    err = raises(OffBoard, OPENED, (Tile("N7", "A"),))
    assert err.params == {"square": "N7"} and "N7" in err.message
    raises(OffBoard, OPENED, (Tile("G14", "A"),))
    err = raises(Wall, OPENED, (Tile("B2", "A"),))
    assert err.message == "square B2 is a wall"
    err = raises(Occupied, OPENED, (Tile("G7", "A"),))
    assert err.message == "square G7 is already occupied by I"
    err = raises(DuplicateSquare, OPENED, (Tile("G8", "A"), Tile("G8", "B")))
    assert err.params == {"square": "G8"}


def test_the_first_word_must_cover_the_source() -> None:
    err = raises(MissingSource, EMPTY, tiles(EMPTY, "6E MAISON"))
    assert err.params == {"source": "G7"} and "G7" in err.message
    assert analyse(EMPTY, tiles(EMPTY, "G4 MAISON")).total == 7


def test_after_the_first_word_every_play_must_touch_a_tile_on_the_board() -> None:
    err = raises(NotConnected, OPENED, tiles(OPENED, "3C MAISON"))
    assert "C3" in err.message
    # diagonal contact is not touching
    raises(NotConnected, OPENED, (Tile("D6", "A"), Tile("D5", "S")))
    assert analyse(OPENED, (Tile("D6", "A"), Tile("D7", "S"))).words[0].word == "AS"


def test_every_word_is_at_least_two_tiles_long() -> None:
    err = raises(NoWord, EMPTY, (Tile("G7", "A"),))
    assert err.params == {"square": "G7"}


def test_a_single_tile_forms_up_to_two_words_and_both_count() -> None:
    board = put(OPENED, "F5 SA.")  # S F5, A F6, (A) F7
    b = analyse(board, (Tile("G6", "U"),))  # AU across (F6 G6) and UI down (G6 G7)
    assert [(w.word, w.main) for w in b.words] == [("AU", True), ("UI", False)]
    assert b.total == 2 + 2


def test_your_play_forms_your_word_plus_every_word_one_of_your_tiles_makes_with_its_neighbours() -> None:
    b = analyse(OPENED, tiles(OPENED, "8E ASSET"))  # under MAISO: MA, AS, IS, SE, OT
    assert [w.word for w in b.words] == ["ASSET", "MA", "AS", "IS", "SE", "OT"]
    assert [w.main for w in b.words] == [True] + [False] * 5


def test_words_read_along_a_row_left_to_right_and_down_a_column_top_to_bottom() -> None:
    scrambled = (Tile("I8", "T"), Tile("E8", "A"), Tile("G8", "S"), Tile("F8", "S"), Tile("H8", "E"))
    assert analyse(OPENED, scrambled).words[0].word == "ASSET"
    down = (Tile("E10", "E"), Tile("E8", "E"), Tile("E9", "R"))
    b = analyse(OPENED, down)
    assert b.words[0].word == "MERE" and b.words[0].squares == ("E7", "E8", "E9", "E10")


def test_a_blank_names_the_letter_it_stands_for() -> None:
    err = raises(BlankWithoutLetter, EMPTY, (Tile("G7", "?", True), Tile("H7", "A")))
    assert "G7" in err.message
    raises(BlankWithoutLetter, EMPTY, (Tile("G7", "", True), Tile("H7", "A")))
    raises(BadLetter, EMPTY, (Tile("G7", "É"), Tile("H7", "A")))
    b = analyse(EMPTY, (Tile("G7", "O", True), Tile("H7", "N")))
    assert b.words[0].word == "ON" and b.words[0].letters[0].blank


def test_first_move_flag_overrides_the_empty_board_guess() -> None:
    raises(MissingSource, OPENED, tiles(OPENED, "8E AS"), first=True)
    raises(NotConnected, EMPTY, tiles(EMPTY, "6E MAISON"), first=False)


def test_check_placement_raises_what_analyse_raises() -> None:
    with pytest.raises(Gap):
        check_placement(OPENED, (Tile("E8", "A"), Tile("G8", "B")))
    placed, words, crossed = check_placement(OPENED, tiles(OPENED, "8E AS"))
    assert len(placed) == 2 and len(words) == 3 and not crossed


def test_the_preview_never_raises_and_names_the_reason() -> None:
    view = {"variant": "lexio", "board": OPENED.to_json()}
    ok = preview(
        view, [{"sq": "E8", "letter": "A", "blank": False}, {"sq": "F8", "letter": "S", "blank": False}]
    )
    assert ok["ok"] and ok["breakdown"]["total"] == analyse(OPENED, tiles(OPENED, "8E AS")).total
    gap = preview(
        view, [{"sq": "E8", "letter": "A", "blank": False}, {"sq": "G8", "letter": "S", "blank": False}]
    )
    assert gap == {"ok": False, "error": {"code": "gap", "message": gap["error"]["message"],
                                          "params": {"first": "E8", "last": "G8"}}}  # fmt: skip
    for bad_view, bad_tiles in (
        (None, []),
        ({"variant": "nope", "board": []}, []),
        ({"variant": "lexio", "board": "x"}, []),
        (view, "G8"),
        (view, [{"sq": 7}]),
        (view, [{"sq": "G8", "letter": "a", "blank": True}, 3]),
        (view, []),
    ):
        out = preview(bad_view, bad_tiles)  # type: ignore[arg-type]
        assert out["ok"] is False and out["error"]["code"] and out["error"]["message"]
    assert preview(view, [{"sq": "g8", "letter": "s", "blank": True}])["ok"]


SQUARES = st.one_of(
    st.sampled_from(OPENED.variant.names),
    st.sampled_from(["", "N7", "A0", "G", "g7", "7G", "Z99"]),
    st.text(),
)
LETTERS = st.one_of(st.sampled_from([*"AEKSZ?", "", "a", "É", "AB"]), st.text(max_size=2))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.builds(Tile, SQUARES, LETTERS, st.booleans()), max_size=9))
def test_any_placement_whatsoever_is_scored_or_refused_with_a_shape_error(placed: list[Tile]) -> None:
    try:
        b = analyse(OPENED, tuple(placed))
    except ShapeError as err:
        assert err.code and err.message
    else:
        assert b.total == sum(w.score for w in b.words) + b.bingo and b.tiles == len(placed)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=4),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(view=st.one_of(JSON, st.fixed_dictionaries({"variant": st.just("lexio"), "board": JSON})), tiles=JSON)
def test_the_preview_answers_any_json_whatsoever(view: object, tiles: object) -> None:
    out = preview(view, tiles)  # type: ignore[arg-type]
    assert out["ok"] in (True, False)
    if not out["ok"]:
        assert set(out["error"]) == {"code", "message", "params"}


def test_a_preview_error_is_the_engine_error_s_own_form_or_bad_input() -> None:
    """engine.preview_error: what the preview answers for an error raised while a caller analysed a
    placement itself (the browser's live preview does)."""
    try:
        analyse(OPENED, (Tile("E8", "A"), Tile("G8", "S")))
    except ShapeError as err:
        assert preview_error(err) == err.to_dict()
        assert preview_error(err)["code"] == "gap"
    else:
        raise AssertionError("a gap was accepted")
    other = preview_error(TypeError("a strange thing"))
    assert other == {"code": "bad_input", "message": "cannot preview: a strange thing", "params": {}}
