"""Scoring: every sentence of the rules about points, on hand-built positions with hand-computed totals."""

from __future__ import annotations

from engine_testkit import put, random_game, tiles

from engine import Board, Place, Tile, analyse, score_placement

EMPTY = Board.empty("lexio")
OPENED = put(EMPTY, "7E MAISON")  # M E7, A F7, I G7, S H7, O I7, N J7


def test_each_word_formed_scores_the_sum_of_its_tiles_values() -> None:
    b = analyse(EMPTY, tiles(EMPTY, "G4 KIWI"))  # K 10, I 1, W 10, I 1; G4..G7 has no bonus
    assert b.total == 22 and b.words[0].score == 22
    assert [x.value for x in b.words[0].letters] == [10, 1, 10, 1]


def test_a_letter_square_multiplies_the_tile_played_on_it_in_every_word_using_it() -> None:
    # ASSET on row 8: A on E8 (letter x2), T on I8 (letter x2); five cross words hang from MAISO.
    b = analyse(OPENED, tiles(OPENED, "8E ASSET"))
    scores = {w.word: w.score for w in b.words}
    assert scores == {"ASSET": 2 + 1 + 1 + 1 + 2, "MA": 2 + 2, "AS": 2, "IS": 2, "SE": 2, "OT": 1 + 2}
    assert b.total == 20
    ma = b.words[1]
    assert [(x.sq, x.letter_mult, x.new) for x in ma.letters] == [("E7", 1, False), ("E8", 2, True)]


def test_letter_x3_triples_the_tile() -> None:
    board = put(EMPTY, "7H ZOO")  # H7 Z, I7 O, J7 O
    b = analyse(board, (Tile("K6", "K"), Tile("K7", "A")))  # K on K6 (letter x3): KA down, ZOOA across
    assert {w.word: w.score for w in b.words} == {"KA": 31, "ZOOA": 13}


def test_a_word_square_multiplies_the_whole_word_and_two_of_them_multiply_each_other() -> None:
    board = put(EMPTY, "7A SAC")  # S A7, A B7, C C7
    b = analyse(board, tiles(board, "A3 ROSE."))  # R on A3 (word x3), S on A5 (word x2): ROSES
    word = b.words[0]
    assert (word.word, word.word_mult, word.score) == ("ROSES", 6, 5 * 6)
    single = analyse(board, tiles(board, "A5 SE."))  # S on A5 (word x2) only: SES
    assert (single.words[0].word_mult, single.total) == (2, 3 * 2)


def test_a_word_square_multiplies_every_word_using_the_tile_placed_on_it() -> None:
    board = put(EMPTY, "7A SAC", "A6 E", "5B U")  # A6 E above A7 S; U on B5, right of A5 (word x2)
    single = analyse(board, (Tile("A5", "T"),))  # TU across and TES down both use the tile on A5
    assert [(w.word, w.word_mult, w.score) for w in single.words] == [("TU", 2, 4), ("TES", 2, 6)]
    board = put(EMPTY, "7A SAC", "A6 E")
    line = analyse(board, tiles(board, "5A TU"))  # main word TU and cross word TES
    assert [(w.word, w.main, w.word_mult, w.score) for w in line.words] == [
        ("TU", True, 2, 4),
        ("TES", False, 2, 6),
    ]


def test_a_blank_is_worth_zero_even_on_a_letter_square() -> None:
    b = analyse(OPENED, tiles(OPENED, "8E aSSET"))  # blank A on E8 (letter x2)
    assert {w.word: w.score for w in b.words} == {"ASSET": 0 + 1 + 1 + 1 + 2, "MA": 2, "AS": 2, "IS": 2,
                                                   "SE": 2, "OT": 3}  # fmt: skip
    blank = b.words[0].letters[0]
    assert (blank.value, blank.letter_mult, blank.blank, blank.new) == (0, 2, True, True)


def test_a_word_square_under_a_blank_still_multiplies_the_word() -> None:
    board = put(EMPTY, "7A SAC")
    b = analyse(board, tiles(board, "A3 rOSE."))  # blank R on A3 (word x3)
    assert (b.words[0].word_mult, b.total) == (6, 4 * 6)


def test_a_bonus_pays_only_on_the_play_that_covers_its_square() -> None:
    board = put(OPENED, "8E ASSET")  # A now lies on E8 (letter x2)
    b = analyse(board, (Tile("E9", "S"),))  # MAS down E7-E9: the letter x2 under A no longer pays
    assert [(w.word, w.score) for w in b.words] == [("MAS", 2 + 1 + 1)]
    assert [x.letter_mult for x in b.words[0].letters] == [1, 1, 1]


def test_the_crossing_doubles_both_words_when_its_tile_is_in_two_words_of_the_play() -> None:
    board = put(EMPTY, "D5 ET")  # E D5, T D6 under the crossing D4
    b = analyse(board, tiles(board, "4B LAC"))  # C on D4: LAC across and CET down
    assert [(w.word, w.word_mult, w.crossing, w.score) for w in b.words] == [
        ("LAC", 2, True, (1 + 1 + 2) * 2),
        ("CET", 2, True, (2 + 1 + 1) * 2),
    ]
    assert b.total == 16


def test_the_crossing_does_nothing_when_its_tile_is_in_only_one_word() -> None:
    board = put(EMPTY, "B5 E")  # touches B4 only: the tile on D4 forms no down word
    b = analyse(board, tiles(board, "4B LAC"))
    assert [(w.word, w.word_mult, w.crossing, w.score) for w in b.words] == [
        ("LAC", 1, False, 4),
        ("LE", 1, False, 2),
    ]


def test_a_single_tile_on_a_crossing_in_only_one_word_does_nothing() -> None:
    board = put(EMPTY, "4B LA")  # L B4, A C4: a tile on D4 extends the across word only
    b = analyse(board, (Tile("D4", "C"),))
    assert [(w.word, w.word_mult, w.crossing, w.score) for w in b.words] == [("LAC", 1, False, 4)]
    assert score_placement(board, (Tile("D4", "C"),)) == (4, ("LAC",))


def test_a_blank_on_a_crossing_still_doubles_both_words() -> None:
    board = put(EMPTY, "D5 ET")
    b = analyse(board, tiles(board, "4B LAc"))
    assert [(w.word, w.score) for w in b.words] == [("LAC", (1 + 1 + 0) * 2), ("CET", (0 + 1 + 1) * 2)]


def test_a_single_tile_on_a_crossing_in_two_words_doubles_both() -> None:
    board = put(EMPTY, "4C A", "D5 ET")  # A on C4; E, T below D4
    b = analyse(board, (Tile("D4", "S"),))  # AS across, SET down
    assert [(w.word, w.crossing, w.score) for w in b.words] == [("AS", True, 4), ("SET", True, 6)]


def test_two_crossings_in_one_word_multiply_each_other() -> None:
    board = put(EMPTY, "D5 E", "J5 E")
    b = analyse(board, tiles(board, "4D ABCDEFG"))  # D4 and J4 both in two words
    main = b.words[0]
    assert (main.word, main.word_mult) == ("ABCDEFG", 4)
    assert main.score == (1 + 3 + 2 + 2 + 1 + 4 + 3) * 4
    assert b.total == main.score + (1 + 1) * 2 + (3 + 1) * 2 + 30


def test_seven_tiles_placed_score_thirty_extra_after_the_multiplications() -> None:
    board = put(EMPTY, "13J S")
    b = analyse(board, tiles(board, "13C AEIOURT."))  # C13 word x3, E13 and I13 word x2: x12, then +30
    assert (b.tiles, b.bingo, b.words[0].word_mult) == (7, 30, 12)
    assert b.total == 8 * 12 + 30
    assert analyse(EMPTY, tiles(EMPTY, "7D MAISONS")).total == 8 + 30
    six = analyse(EMPTY, tiles(EMPTY, "7D MAISON"))
    assert (six.bingo, six.total) == (0, 7)


def test_classic_bingo_is_fifty_and_the_centre_doubles_the_first_word() -> None:
    classic = Board.empty("classic")
    b = analyse(classic, tiles(classic, "8H RETAINS"))  # H8 word x2, L8 letter x2
    assert (b.bingo, b.total) == (50, (1 + 1 + 1 + 1 + 2 + 1 + 1) * 2 + 50)


def test_breakdown_dict_has_the_documented_shape() -> None:
    d = analyse(OPENED, tiles(OPENED, "8E aS")).to_dict()
    assert set(d) == {"words", "tiles", "bingo", "total"}
    w = d["words"][0]
    assert set(w) == {"word", "main", "squares", "letters", "word_mult", "crossing", "score"}
    assert w["letters"][0] == {
        "sq": "E8",
        "letter": "A",
        "value": 0,
        "letter_mult": 2,
        "blank": True,
        "new": True,
    }
    assert w["squares"] == ["E8", "F8"] and d["tiles"] == 2
    assert d["total"] == sum(x["score"] for x in d["words"]) + d["bingo"]


def test_score_placement_agrees_with_the_breakdown_on_random_games() -> None:
    seen = 0
    for seed in range(4):
        for before, command, _events, _after in random_game(seed, 3):
            move = getattr(command, "move", None)
            if not isinstance(move, Place):
                continue
            b = analyse(before.board, move.tiles)
            assert score_placement(before.board, move.tiles) == (b.total, b.word_list)
            seen += 1
    assert seen > 50
