"""The clearing and the tiles: every property the rules and decisions.md state about them."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from engine_testkit import DOCS

from engine import Board, Kind, Place, Tile, analyse, get_variant, parse_move
from engine.errors import BadSetting, Occupied, OffBoard, UnknownVariant, Wall
from engine.variants import Variant

LEXIO = get_variant("lexio")
CLASSIC = get_variant("classic")
PREMIUMS = (Kind.WORD3, Kind.WORD2, Kind.LETTER3, Kind.LETTER2, Kind.CROSSING)


def neighbours(v: Variant, i: int) -> list[int]:
    """Squares sharing a side with square i, walls included (the tables skip walls; here we want them)."""
    r, c = divmod(i, v.width)
    out = []
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        rr, cc = r + dr, c + dc
        if 0 <= rr < v.height and 0 <= cc < v.width:
            out.append(rr * v.width + cc)
    return out


def on_edge(v: Variant, i: int) -> bool:
    """Next to the board's edge or to a wall."""
    return len(neighbours(v, i)) < 4 or any(not v.playable[j] for j in neighbours(v, i))


def test_clearing_is_13_by_13_with_columns_A_to_M_and_rows_1_to_13() -> None:
    assert (LEXIO.width, LEXIO.height) == (13, 13)
    assert LEXIO.names[0] == "A1" and LEXIO.names[12] == "M1" and LEXIO.names[-1] == "M13"
    assert LEXIO.names[6 * 13 + 6] == "G7"


def test_corners_are_walled_off_sixteen_squares_leaving_153_playable() -> None:
    walls = {LEXIO.names[i] for i, k in enumerate(LEXIO.kinds) if k is Kind.WALL}
    corners = {f"{c}{r}" for c in "ABLM" for r in (1, 2, 12, 13)}
    assert walls == corners
    assert len(LEXIO.squares()) == 153


def test_source_is_in_the_middle_G7_and_multiplies_nothing() -> None:
    assert LEXIO.source == "G7" and LEXIO.kind("G7") is Kind.SOURCE
    i = LEXIO.index["G7"]
    assert (LEXIO.letter_mult[i], LEXIO.word_mult[i], LEXIO.crossing[i]) == (1, 1, False)
    assert not Kind.SOURCE.premium


def test_thirty_six_bonus_squares_eight_of_each_multiplier_and_four_crossings() -> None:
    counts = Counter(k for k in LEXIO.kinds if k.premium)
    assert counts == {Kind.LETTER2: 8, Kind.LETTER3: 8, Kind.WORD2: 8, Kind.WORD3: 8, Kind.CROSSING: 4}
    assert sum(counts.values()) == 36


def test_word_bonuses_are_on_the_edge() -> None:
    word = [i for i, k in enumerate(LEXIO.kinds) if k in (Kind.WORD2, Kind.WORD3)]
    assert word and all(on_edge(LEXIO, i) for i in word)


def test_letter_bonuses_and_crossings_are_inside() -> None:
    inside = [i for i, k in enumerate(LEXIO.kinds) if k in (Kind.LETTER2, Kind.LETTER3, Kind.CROSSING)]
    assert len(inside) == 20 and not any(on_edge(LEXIO, i) for i in inside)


def test_no_bonus_square_touches_another_along_a_side() -> None:
    for i, k in enumerate(LEXIO.kinds):
        if k.premium:
            touching = [LEXIO.names[j] for j in neighbours(LEXIO, i) if LEXIO.kinds[j].premium]
            assert not touching, f"{LEXIO.names[i]} touches {touching}"


def test_row_7_and_column_G_hold_no_bonus() -> None:
    line = [sq for sq in LEXIO.squares() if sq[1:] == "7" or sq[0] == "G"]
    assert len(line) == 25
    assert not any(LEXIO.kind(sq).premium for sq in line)


def test_the_first_word_of_the_game_reaches_no_square_that_pays() -> None:
    """Every first word of 2 to 7 tiles through G7, across or down, scores its bare face value."""
    empty = Board.empty(LEXIO)
    checked = 0
    for across in (True, False):
        for length in range(2, 8):
            for offset in range(length):
                squares = []
                for k in range(length):
                    d = k - offset
                    squares.append(f"{chr(ord('G') + d)}7" if across else f"G{7 + d}")
                if not all(sq in LEXIO.index and LEXIO.playable[LEXIO.index[sq]] for sq in squares):
                    continue
                placed = tuple(Tile(sq, "K") for sq in squares)  # K: 10 points, so a multiplier would show
                breakdown = analyse(empty, placed)
                bingo = LEXIO.bingo_bonus if length == 7 else 0
                assert breakdown.total == 10 * length + bingo, squares
                assert not any(LEXIO.kind(sq).premium for sq in squares)
                checked += 1
    assert checked == 2 * sum(range(2, 8))


def test_layout_is_exactly_the_picture_of_decisions_md() -> None:
    decisions = DOCS / "decisions.md"
    block = decisions.read_text(encoding="utf-8").split("```")[1]
    rows = [line.split()[1:] for line in block.splitlines() if re.match(r"^\s*\d+\s", line)]
    assert "".join("".join(r) + "\n" for r in rows) == LEXIO.layout


def test_a_word_stops_at_the_wall_as_at_the_edge() -> None:
    board = Board.empty(LEXIO)
    board = board.with_tiles([Tile("C12", "O"), Tile("D12", "S")])
    # A tile after the wall's side of C12 cannot go on B12 (a wall), and the word C12-E12 stops there.
    with pytest.raises(Wall, match="square B12 is a wall"):
        analyse(board, (Tile("B12", "D"),))
    b = analyse(board, (Tile("E12", "E"),))
    assert b.words[0].word == "OSE" and b.words[0].squares == ("C12", "D12", "E12")
    assert LEXIO.left[LEXIO.index["C12"]] == -1 and LEXIO.left[LEXIO.index["A7"]] == -1


def test_square_names_off_the_grid_and_walls_are_refused_by_name() -> None:
    for bad in ("N7", "A14", "A0", "G", "7G", "", "g7"):
        with pytest.raises(OffBoard) as err:
            LEXIO.square_index(bad)
        assert err.value.code == "off_board" and err.value.params["square"] == bad
    with pytest.raises(Wall) as wall:
        LEXIO.square_index("M13")
    assert wall.value.code == "wall" and "M13" in wall.value.message


def test_bag_holds_102_tiles_in_the_french_distribution() -> None:
    counts = {t.letter: t.count for t in LEXIO.tiles}
    assert LEXIO.tile_count == 102 and len(LEXIO.full_bag()) == 102
    assert counts["?"] == 2 and sum(c for letter, c in counts.items() if letter != "?") == 100
    assert set(counts) - {"?"} == set("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    assert counts == {
        "A": 10, "B": 2, "C": 2, "D": 3, "E": 14, "F": 2, "G": 2, "H": 2, "I": 8, "J": 1, "K": 1, "L": 5,
        "M": 3, "N": 6, "O": 6, "P": 2, "Q": 1, "R": 6, "S": 6, "T": 6, "U": 6, "V": 2, "W": 1, "X": 1,
        "Y": 1, "Z": 1, "?": 2,
    }  # fmt: skip


def test_the_E_comes_in_fourteen_copies_and_eight_or_ten_point_letters_have_one_copy_each() -> None:
    counts = {t.letter: t.count for t in LEXIO.tiles}
    assert counts["E"] == 14
    assert all(t.count == 1 for t in LEXIO.tiles if t.value in (8, 10))


def test_letter_values_are_those_of_the_rules() -> None:
    groups = {"EAISNRTULO": 1, "DCMP": 2, "GB": 3, "VFH": 4, "QJX": 8, "YKWZ": 10, "?": 0}
    expected = {letter: value for letters, value in groups.items() for letter in letters}
    assert {t.letter: t.value for t in LEXIO.tiles} == expected


def test_rack_holds_seven_tiles_and_seven_placed_earn_thirty() -> None:
    assert (LEXIO.rack_size, LEXIO.bingo_bonus) == (7, 30)


def test_classic_is_the_standard_15x15_board_with_english_tiles() -> None:
    assert (CLASSIC.width, CLASSIC.height, CLASSIC.rack_size, CLASSIC.bingo_bonus) == (15, 15, 7, 50)
    assert CLASSIC.source == "H8" and CLASSIC.kind("H8") is Kind.WORD2
    assert all(CLASSIC.playable)
    counts = Counter(CLASSIC.kinds)
    assert counts[Kind.WORD3] == 8 and counts[Kind.WORD2] == 17
    assert counts[Kind.LETTER3] == 12 and counts[Kind.LETTER2] == 24 and counts[Kind.CROSSING] == 0
    assert CLASSIC.tile_count == 100
    assert CLASSIC.value("Q") == 10 and CLASSIC.value("K") == 5 and CLASSIC.value("?") == 0
    for sq, kind in (("A1", Kind.WORD3), ("D1", Kind.LETTER2), ("B2", Kind.WORD2), ("F2", Kind.LETTER3)):
        assert CLASSIC.kind(sq) is kind


def test_classic_first_move_must_cover_H8_and_gets_its_double() -> None:
    board = Board.empty(CLASSIC)
    move = parse_move("8H DOWLY", board)  # a real opening: jvc, josh2.gcg, +32
    assert isinstance(move, Place)
    assert analyse(board, move.tiles).total == 32


def test_unknown_variant_is_refused_by_name() -> None:
    with pytest.raises(UnknownVariant, match="'scrabble'") as err:
        get_variant("scrabble")
    assert err.value.params == {"variant": "scrabble"}


def test_variant_data_is_checked_when_built() -> None:
    tiles = "A 1 1\n? 1 0\n"
    with pytest.raises(BadSetting):
        Variant.from_text("ragged", "...\n..\n", tiles, rack_size=7, bingo_bonus=0, source="A1")
    with pytest.raises(BadSetting):
        Variant.from_text("legend", "..%\n...\n", tiles, rack_size=7, bingo_bonus=0, source="A1")
    with pytest.raises(BadSetting):
        Variant.from_text("walled", "#..\n...\n", tiles, rack_size=7, bingo_bonus=0, source="A1")
    with pytest.raises(BadSetting):
        Variant.from_text("nosource", "...\n...\n", tiles, rack_size=7, bingo_bonus=0)
    with pytest.raises(BadSetting):
        Variant.from_text("table", "*..\n...\n", "A one 1\n", rack_size=7, bingo_bonus=0)
    tiny = Variant.from_text("tiny", "*.T\n.d.\n", tiles, rack_size=2, bingo_bonus=5)
    assert tiny.source == "A1" and tiny.kind("C1") is Kind.WORD3 and tiny.tile_count == 2


def test_board_json_round_trips_and_with_tiles_checks_squares() -> None:
    board = Board.empty().with_tiles([Tile("G7", "A"), Tile("H7", "B", True)])
    assert Board.from_json("lexio", board.to_json()) == board
    assert board.to_json() == [
        {"sq": "G7", "letter": "A", "blank": False},
        {"sq": "H7", "letter": "B", "blank": True},
    ]
    assert board["H7"] == "B" and board.get("H7") == Tile("H7", "B", True) and board["A3"] is None
    assert len(board) == 2 and "G7" in board and "F7" not in board
    assert board == board.with_tiles([]) and hash(board) == hash(board.with_tiles([]))
    with pytest.raises(Occupied, match="G7"):
        board.with_tiles([Tile("G7", "C")])
    with pytest.raises(Wall):
        board.with_tiles([Tile("A1", "C")])
    with pytest.raises(OffBoard):
        board.with_tiles([Tile("Z9", "C")])
