"""Each level plays within its handicaps; with nothing to play a bot swaps (never more than the bag holds) or
passes; a bot acts only on its own seat's view, within its time budget."""

from __future__ import annotations

import dataclasses
import random
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.board import Board
from engine.moves import Pass, Place, Swap, Tile
from engine.scoring import analyse
from engine.variants import get_variant
from relay.bots import driver
from relay.bots.equity import Position
from relay.bots.levels import LEVEL_NAMES, LEVELS, Level
from relay.bots.player import BotError, MoveGenDriver, swap_choice
from relay.bots.vocab import common_words
from relay.lexicon import WordList


def test_the_five_levels_map_to_their_names_weakest_first() -> None:
    from relay.protocol import LEVELS as PROTOCOL_LEVELS

    assert LEVEL_NAMES == ("beginner", "easy", "medium", "strong", "expert")
    assert PROTOCOL_LEVELS == LEVEL_NAMES  # the three old names stay valid
    assert [LEVELS[n].label for n in LEVEL_NAMES] == ["débutant", "facile", "moyen", "fort", "expert"]
    vocab = [LEVELS[n].vocabulary or 10**9 for n in LEVEL_NAMES]
    assert vocab == sorted(vocab) and LEVELS["expert"].vocabulary is None
    assert [LEVELS[n].max_tiles for n in LEVEL_NAMES] == sorted(LEVELS[n].max_tiles for n in LEVEL_NAMES)
    # Misjudgement: the three vocabulary-limited levels less and less; strong, who knows every word, judges
    # hastily; the expert does not misjudge.
    noise = [LEVELS[n].noise for n in LEVEL_NAMES]
    assert noise[:3] == sorted(noise[:3], reverse=True) and noise[3] > 0 and noise[4] == 0
    assert LEVELS["expert"].exchanges and LEVELS["expert"].endgame
    # Only the expert looks at the next player's replies.
    assert [n for n in LEVEL_NAMES if LEVELS[n].replies] == ["expert"] and LEVELS["expert"].reply_weight > 0
    weights = [LEVELS[n].leave_weight for n in LEVEL_NAMES]
    assert weights == sorted(weights) and weights[-1] > 0


def test_a_beginner_plays_only_common_words_and_short_plays(fr_words: WordList) -> None:
    bot = MoveGenDriver(fr_words, budget_seconds=30)  # a loaded test machine must not cut the search
    known = set(common_words(LEVELS["beginner"].vocabulary or 0))
    lexio = get_variant("lexio")
    for seed, rack in enumerate(["MAISONS", "ZYTHUMS", "ERAILAS", "BONJOUR"]):
        move = bot.choose(lexio_view(Board.empty(lexio), rack, 80), "beginner", random.Random(seed))
        if isinstance(move, Place):
            assert len(move.tiles) <= LEVELS["beginner"].max_tiles
            assert all(w in known for w in analyse(Board.empty(lexio), move.tiles).word_list)
    # The expert, with the whole list, finds the seven-tile play a beginner cannot see.
    move = bot.choose(lexio_view(Board.empty(lexio), "MAISONS", 80), "expert", random.Random(0))
    assert isinstance(move, Place) and len(move.tiles) == 7


def test_no_move_means_an_unknown_level_is_refused() -> None:
    bot = MoveGenDriver(WordList.from_words(["AS"], name="t"))
    with pytest.raises(BotError) as err:
        bot.choose(lexio_view(Board.empty("lexio"), "AS", 80), "genius", random.Random(0))
    assert err.value.code == "bad_level"


@settings(max_examples=60)
@given(rack=st.text(alphabet="ABEKQSWXYZ?", min_size=1, max_size=7), bag=st.integers(0, 100))
def test_a_swap_returns_rack_tiles_no_more_than_the_bag_holds(rack: str, bag: int) -> None:
    returned = swap_choice(rack, bag)
    assert len(returned) <= bag
    remaining = list(rack)
    for ch in returned:
        remaining.remove(ch)  # raises if the bot returns a tile it does not hold
    if bag >= len(rack):
        assert returned, "a full bag always allows a swap"


def test_a_swap_keeps_blanks_and_flexible_letters_first() -> None:
    assert sorted(swap_choice("?EKWXYZ", 50)) == sorted("KWXYZ")
    assert swap_choice("QWXZKYJ", 2) and len(swap_choice("QWXZKYJ", 2)) == 2


def lexio_view(board: Board, rack: str, bag_size: int) -> dict[str, object]:
    return {"variant": "lexio", "board": board.to_json(), "rack": rack, "bag_size": bag_size, "you": 0}


def test_a_bot_with_nothing_to_play_swaps_then_passes_when_the_bag_is_empty() -> None:
    words = WordList.from_words(["ZZZZZZZZ"], name="t")
    bot = MoveGenDriver(words)
    empty = Board.empty("lexio")
    move = bot.choose(lexio_view(empty, "AEIKQWX", 40), "strong", random.Random(0))
    assert isinstance(move, Swap) and move.tiles
    assert isinstance(bot.choose(lexio_view(empty, "AEIKQWX", 0), "strong", random.Random(0)), Pass)


def test_the_bot_plays_a_valid_placement_from_its_view(fr_words: WordList) -> None:
    bot = MoveGenDriver(fr_words, budget_seconds=30)  # a loaded test machine must not cut the search
    lexio = get_variant("lexio")
    for level in LEVEL_NAMES:
        move = bot.choose(lexio_view(Board.empty(lexio), "MAISONS", 80), level, random.Random(3))
        assert isinstance(move, Place)
        breakdown = analyse(Board.empty(lexio), move.tiles)
        assert not fr_words.unknown(breakdown.word_list)
        assert "G7" in {t.square for t in move.tiles}


def test_a_view_without_a_rack_is_refused() -> None:
    bot = MoveGenDriver(WordList.from_words(["AS"], name="t"))
    with pytest.raises(BotError) as err:
        bot.choose({"variant": "lexio", "board": [], "rack": None}, "easy", random.Random(0))
    assert err.value.code == "bad_view"
    with pytest.raises(BotError):
        bot.choose({"variant": "nope", "board": [], "rack": "AB"}, "easy", random.Random(0))
    with pytest.raises(BotError):
        bot.choose({"variant": "lexio", "board": [], "rack": "AB"}, "grandmaster", random.Random(0))
    with pytest.raises(BotError) as err:
        bot.choose({"variant": "lexio", "board": [], "rack": "A1"}, "easy", random.Random(0))
    assert err.value.code == "bad_view"


def test_the_search_stops_at_the_time_budget_and_plays_what_it_found(fr_words: WordList) -> None:
    bot = MoveGenDriver(fr_words, budget_seconds=0.0)
    bot.warm()
    t0 = time.monotonic()
    move = bot.choose(lexio_view(Board.empty("lexio"), "??EAIRS", 80), "strong", random.Random(0))
    # With no budget the search stops at its first check: few or no moves, never a long think.
    assert time.monotonic() - t0 < 1.0
    assert isinstance(move, Place | Swap | Pass)


def test_the_driver_matches_the_relay_protocol_and_thinks_in_a_worker_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from relay.botdriver import BotDriver
    from relay.bots.pool import ProcessDriver

    words = WordList.from_words(["AS", "SA", "ASE"], name="t")
    monkeypatch.delenv("LEXIO_BOT_PROCESSES", raising=False)
    pooled = driver(words)
    assert isinstance(pooled, ProcessDriver) and isinstance(pooled, BotDriver)
    try:
        move = pooled.choose(lexio_view(Board.empty("lexio"), "ASEKWXZ", 80), "strong", random.Random(1))
        assert isinstance(move, Place) and {t.square for t in move.tiles} >= {"G7"}
        with pytest.raises(BotError) as err:
            pooled.choose(lexio_view(Board.empty("lexio"), "AS", 80), "genius", random.Random(0))
        assert err.value.code == "bad_level"
    finally:
        pooled.close()
    monkeypatch.setenv("LEXIO_BOT_PROCESSES", "0")
    assert isinstance(driver(words), MoveGenDriver)


def test_a_driver_given_a_bare_lookup_refuses_rather_than_guess_a_word_list() -> None:
    bot = MoveGenDriver(lambda words: [])
    with pytest.raises(BotError) as err:
        bot.choose(lexio_view(Board.empty("lexio"), "MAISONS", 80), "easy", random.Random(0))
    assert err.value.code == "no_word_list"


def test_the_openness_knob_is_off_in_every_level_and_when_set_keeps_a_square_for_the_tiles_kept() -> None:
    # "LA" across on G7-H7: LAK (K at I7) outscores KA (K at H6) but takes the one square the kept S could
    # use (LAS). With the knob, KA leaves S a placement and wins; with more tiles in the bag it is off.
    assert all(LEVELS[n].open_weight == 0 for n in LEVEL_NAMES)
    words = WordList.from_words(["LA", "LAS", "LAK", "KA"], name="t")
    board = Board.empty("lexio").with_tiles([Tile("G7", "L"), Tile("H7", "A")])
    bot = MoveGenDriver(words)
    index = board.variant.index
    opened = dataclasses.replace(LEVELS["expert"], open_weight=5.0, open_bag=3, open_own=True)

    def square(level: Level, bag: int) -> int:
        d = bot.decide(Position(board, "KS", bag, "U" * (7 + bag), (7,)), level, random.Random(1))
        assert d.kind == "place" and d.move is not None and d.move.size == 1
        return d.move.tiles[0][0]

    assert square(LEVELS["expert"], 3) == index["I7"]
    assert square(opened, 3) == index["H6"]
    assert square(opened, 4) == index["I7"]
