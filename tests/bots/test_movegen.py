"""The move generator finds exactly the valid placements (shape rules + every word in the list) with the
engine's scores: proved against brute force on a small walled board, and move by move against the engine."""

from __future__ import annotations

import random
import time

import pytest
from botkit import SMALL, SMALL_ALPHABET, SMALL_WORDS, brute_force, random_board
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.board import Board
from engine.moves import Tile
from engine.scoring import analyse
from engine.variants import get_variant
from relay.bots.graph import WordGraph, letter_mask
from relay.bots.movegen import generate, openness
from relay.lexicon import WordList

racks = st.text(alphabet=SMALL_ALPHABET + "?", min_size=1, max_size=4)
slow = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def tiles(*specs: str) -> list[Tile]:
    """Tiles from "SQ LETTER" strings."""
    return [Tile(sq, letter) for sq, letter in (spec.split() for spec in specs)]


def as_keys(board: Board, rack: str, graph: WordGraph) -> set[tuple[int, tuple[tuple[int, str, bool], ...]]]:
    result = generate(board, rack, graph)
    assert result.complete
    keys = [(m.score, m.tiles) for m in result.moves]
    assert len(keys) == len(set(keys)), "a move was listed twice"
    return set(keys)


@slow
@given(rack=racks)
def test_first_moves_are_exactly_the_brute_force_set_covering_the_source(
    rack: str, small_graph: WordGraph
) -> None:
    board = Board.empty(SMALL)
    found = as_keys(board, rack, small_graph)
    assert found == brute_force(board, rack, SMALL_WORDS)
    assert all(any(sq == SMALL.source_index for sq, _, _ in tiles) for _, tiles in found)


@slow
@given(seed=st.integers(0, 10_000), plays=st.integers(1, 6), rack=racks)
def test_mid_game_moves_are_exactly_the_brute_force_set_with_its_scores(
    seed: int, plays: int, rack: str, small_graph: WordGraph
) -> None:
    board = random_board(SMALL, small_graph, seed, plays, SMALL_ALPHABET)
    assert as_keys(board, rack, small_graph) == brute_force(board, rack, SMALL_WORDS)


@slow
@given(seed=st.integers(0, 10_000), plays=st.integers(1, 6), keep=st.text(SMALL_ALPHABET, max_size=3))
def test_openness_counts_the_single_tile_placements_the_generator_finds(
    seed: int, plays: int, keep: str, small_graph: WordGraph
) -> None:
    board = random_board(SMALL, small_graph, seed, plays, SMALL_ALPHABET)
    single = {
        (m.tiles[0][0], letter)
        for letter in SMALL_ALPHABET
        for m in generate(board, letter, small_graph).moves
    }
    assert openness(board, small_graph) == len(single)
    kept = {(sq, letter) for sq, letter in single if letter in keep}
    assert openness(board, small_graph, letter_mask(keep)) == len(kept)


def test_an_empty_board_takes_no_single_tile(small_graph: WordGraph) -> None:
    assert openness(Board.empty(SMALL), small_graph) == 0


def test_two_blanks_find_every_letter_they_can_stand_for(small_graph: WordGraph) -> None:
    board = random_board(SMALL, small_graph, 7, 3, SMALL_ALPHABET)
    assert as_keys(board, "??A", small_graph) == brute_force(board, "??A", SMALL_WORDS)


def test_a_wall_inside_a_line_ends_words_like_the_edge(small_graph: WordGraph) -> None:
    # Row 3 is "..X#..X": a word may end at C3 or start at E3, never cross D3.
    board = Board.empty(SMALL).with_tiles(tiles("D4 R", "E4 A", "F4 S"))
    found = as_keys(board, "BETA", small_graph)
    assert found == brute_force(board, "BETA", SMALL_WORDS)
    names = SMALL.names
    assert all(names[sq] != "D3" for _, tiles in found for sq, _, _ in tiles)
    assert any(names[sq] == "E3" for _, tiles in found for sq, _, _ in tiles)


def test_playing_the_whole_rack_adds_the_bingo_bonus(small_graph: WordGraph) -> None:
    found = as_keys(Board.empty(SMALL), "RATS", small_graph)
    full = [(score, tiles) for score, tiles in found if len(tiles) == SMALL.rack_size]
    assert full, "RATS/STAR through the source should be playable"
    for score, tiles_ in full:
        placed = [Tile(SMALL.names[sq], letter, blank) for sq, letter, blank in tiles_]
        assert score == analyse(Board.empty(SMALL), placed).total
        assert score >= SMALL.bingo_bonus


def test_an_expired_deadline_stops_the_search_and_says_so(small_graph: WordGraph) -> None:
    board = random_board(SMALL, small_graph, 3, 3, SMALL_ALPHABET)
    result = generate(board, "AES?", small_graph, deadline=time.monotonic() - 1)
    assert not result.complete
    full = set(generate(board, "AES?", small_graph).moves)
    assert set(result.moves) <= full


def test_a_rack_with_a_non_tile_character_is_refused(small_graph: WordGraph) -> None:
    with pytest.raises(ValueError, match="not a tile"):
        generate(Board.empty(SMALL), "AB1", small_graph)


def test_an_empty_rack_has_no_move(small_graph: WordGraph) -> None:
    assert generate(Board.empty(SMALL), "", small_graph).moves == []


def test_lexio_first_move_must_cover_g7_and_reaches_no_paying_square(fr_graph: WordGraph) -> None:
    lexio = get_variant("lexio")
    moves = generate(Board.empty(lexio), "MAISONS", fr_graph).moves
    assert moves
    for move in moves:
        squares = {lexio.names[sq] for sq, _, _ in move.tiles}
        assert "G7" in squares
        breakdown = analyse(Board.empty(lexio), move.to_place(lexio).tiles)
        assert move.score == breakdown.total
        assert all(w.word_mult == 1 for w in breakdown.words)


@pytest.mark.parametrize("seed", range(20))
def test_seeded_positions_match_brute_force_on_the_small_board(seed: int, small_graph: WordGraph) -> None:
    rng = random.Random(seed)
    board = random_board(SMALL, small_graph, seed, rng.randrange(1, 8), SMALL_ALPHABET)
    rack = "".join(rng.choice(SMALL_ALPHABET + "?") for _ in range(4))
    assert as_keys(board, rack, small_graph) == brute_force(board, rack, SMALL_WORDS)


@pytest.mark.parametrize("seed", range(4))
def test_lexio_positions_reaching_the_walls_match_brute_force(seed: int, small_graph: WordGraph) -> None:
    lexio = get_variant("lexio")
    rng = random.Random(seed)
    board = random_board(lexio, small_graph, seed, 25, SMALL_ALPHABET)
    rack = "".join(rng.choice(SMALL_ALPHABET) for _ in range(3))
    assert as_keys(board, rack, small_graph) == brute_force(board, rack, SMALL_WORDS)


@pytest.mark.parametrize(("seed", "rack"), [(1, "EST"), (2, "RUA"), (3, "E?")])
def test_lexio_positions_with_the_french_list_match_brute_force(
    seed: int, rack: str, fr_words: WordList, fr_graph: WordGraph
) -> None:
    lexio = get_variant("lexio")
    board = random_board(lexio, fr_graph, seed, 8, "EAISNRTULODCMP")
    found = as_keys(board, rack, fr_graph)
    assert found == brute_force(board, rack, fr_words)
    assert len(found) > 20
