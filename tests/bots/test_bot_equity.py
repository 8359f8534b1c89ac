"""Equity: the shipped leave file loads and is used; exchanges are weighed and chosen when better (never more
tiles than the bag holds); a deadline cuts both directions of the move search evenly."""

from __future__ import annotations

import dataclasses
import itertools
import random
import time

import pytest

import relay.bots.movegen as movegen
from engine.board import Board
from engine.moves import Tile
from relay.bots.equity import Position, exchanges, rank, unseen_tiles
from relay.bots.graph import WordGraph
from relay.bots.leaves import FORMAT, LEAVES_FILE, LeaveError, LeaveModel, default_model, features
from relay.bots.levels import LEVELS
from relay.bots.movegen import Candidate, generate
from relay.bots.player import MoveGenDriver
from relay.lexicon import WordList


def test_the_shipped_leave_file_loads_once_and_says_how_it_was_made() -> None:
    model = default_model()
    assert default_model() is model  # loaded once per process
    assert LEAVES_FILE.stat().st_size < 64_000
    assert model.meta["games"] >= 500 and model.meta["samples"] >= 5000 and model.meta["seed"] == 2026
    assert model.meta["cpu_seconds"] > 0 and model.meta["wall_seconds"] > 0
    assert model.meta["command"].startswith("python -m relay.bots.train_leaves")
    # What every player knows: the blank is the best tile to keep; copies of one letter clog a rack.
    singles = {c: model.value(c) for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"}
    assert model.value("?") > max(singles.values()) and model.value("?") > 0
    assert model.value("EEE") < model.value("EE") < model.value("E")
    assert model.value("UU") < model.value("U") and model.value("II") < model.value("I")
    assert model.value("?S") > model.value("S")
    assert model.value("") == 0.0


def test_a_broken_leave_file_is_refused_with_a_code(tmp_path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "leaves.json"
    bad.write_text('{"format": 9, "weights": {}}')
    with pytest.raises(LeaveError) as err:
        LeaveModel.load(bad)
    assert err.value.code == "bad_leaves"


def test_a_blank_counts_in_the_balance_as_the_side_the_leave_lacks() -> None:
    def balance(leave: str) -> str:
        return features(leave)[0][0]

    # A blank-only leave has no balance term of its own (format 2's B00 soaked up most of the blank's
    # value there, so ?S was worth far less than ? alone).
    assert balance("?") == balance("S") and balance("??") == balance("ES")
    assert balance("?S") == balance("ES") and balance("?E") == balance("ES")
    assert balance("?AE") == balance("AES") and balance("?RST") == balance("ERST")
    for size in range(1, 7):
        for blanks in range(0, min(size, 2) + 1):
            for vowels in range(size - blanks + 1):
                leave = "?" * blanks + "A" * vowels + "T" * (size - blanks - vowels)
                name = balance(leave)
                assert int(name[1]) + int(name[2]) == size, leave


def test_leave_files_of_format_2_are_read_with_their_own_features_and_others_refused(tmp_path) -> None:  # type: ignore[no-untyped-def]
    weights = {"B00": 20.0, "B01": 1.0, "B11": 2.0, "1?": 5.0, "1S": 3.0}
    old = LeaveModel.from_json({"format": 2, "weights": weights})
    assert old.value("?") == 25.0 and old.value("?S") == 5.0 + 3.0 + 1.0  # blanks aside in the balance
    new = LeaveModel.from_json({"format": FORMAT, "weights": weights})
    assert new.value("?") == 5.0 + 1.0 and new.value("?S") == 5.0 + 3.0 + 2.0
    assert new.to_json()["format"] == FORMAT == 3 and old.to_json()["format"] == 2
    bad = tmp_path / "leaves.json"
    bad.write_text('{"format": 1, "weights": {"B0": 1.0}}')
    with pytest.raises(LeaveError, match="format 1, this code reads formats"):
        LeaveModel.load(bad)


def pos(rack: str, bag: int, board: Board | None = None) -> Position:
    b = board or Board.empty("lexio")
    return Position(b, rack, bag, unseen_tiles(b.variant, b, rack), (7,))


def cand(score: int, tiles: str) -> Candidate:
    return Candidate(score, tuple((80 + i, ch, False) for i, ch in enumerate(tiles)))


def test_equity_prefers_a_good_leave_to_a_point_more() -> None:
    model = default_model()
    assert model.value("?S") > model.value("VW") + 2  # the table's own judgement, which the choice follows
    keeps_blank = cand(20, "VWAE")  # keeps ?S
    keeps_junk = cand(22, "?SAE")  # two points more, keeps VW
    rack = "?SVWAE"
    ranked = rank([keeps_junk, keeps_blank], pos(rack, 60), model, with_exchanges=False)
    assert ranked[0].move == keeps_blank and ranked[0].leave == "?S"
    assert ranked[0].equity == pytest.approx(20 + model.value("?S"))
    # Score alone (a leave weight of 0) takes the two points.
    assert rank([keeps_junk, keeps_blank], pos(rack, 60), model, leave_weight=0)[0].move == keeps_junk


@pytest.mark.parametrize("bag", [0, 1, 3, 7, 50])
def test_exchanges_never_return_more_tiles_than_the_bag_holds(bag: int) -> None:
    splits = exchanges("AEEKQW?", bag)
    assert all(1 <= len(r) <= bag and sorted(r + k) == sorted("AEEKQW?") for r, k in splits)
    assert all("?" not in r for r, _ in splits)
    assert len({r for r, _ in splits}) == len(splits)  # each distinct exchange once
    if bag >= 7:
        # 2*2*2*2*3 - 1 distinct non-empty multisets of the rack (E twice), the blank always kept.
        assert len(splits) == 2 * 2 * 2 * 2 * 3 - 1
    options = rank([], pos("AEEKQW?", bag), default_model())
    assert all(len(o.tiles) <= bag for o in options)


def test_an_exchange_never_returns_a_blank_and_a_second_blank_is_worth_a_blank() -> None:
    model = default_model()
    assert model.value("??") > model.value("?") + 3
    assert model.value("??S") > model.value("?S") + 3
    # Seen in self-play: with two blanks and nothing good to play, a blank went back to the bag.
    rack = "?HHNVR?"
    options = rank([], pos(rack, 9), model)
    assert options and all("?" not in o.tiles and o.leave.count("?") == 2 for o in options)


def test_the_expert_exchanges_when_its_only_placement_keeps_a_bad_rack() -> None:
    # The only word is UE-less "KU"... : the list holds one word playable from this rack, worth little.
    words = WordList.from_words(["UV"], name="t")
    bot = MoveGenDriver(words)
    rack = "UVUUWIZ"
    p = pos(rack, 50)
    expert = bot.decide(p, LEVELS["expert"], random.Random(0))
    assert expert.kind == "swap" and len(expert.tiles) >= 3
    model = default_model()
    kept = list(rack)
    for t in expert.tiles:
        kept.remove(t)
    # The exchange kept what the leave table values most among every split.
    best = max(exchanges(rack, 50), key=lambda rk: model.value(rk[1]))
    assert model.value("".join(kept)) == pytest.approx(model.value(best[1]))
    # The strong level does not weigh exchanges: it places the word it sees.
    assert bot.decide(p, LEVELS["strong"], random.Random(0)).kind == "place"
    # With 2 tiles in the bag the expert returns at most 2.
    small = bot.decide(pos(rack, 2), LEVELS["expert"], random.Random(0))
    assert small.kind != "swap" or len(small.tiles) <= 2


def test_a_deadline_cuts_both_directions_evenly(fr_graph: WordGraph, monkeypatch: pytest.MonkeyPatch) -> None:
    board = Board.empty("lexio").with_tiles(
        [Tile("E7", "M"), Tile("F7", "A"), Tile("G7", "I"), Tile("H7", "S"), Tile("I7", "O"), Tile("J7", "N")]
    )
    rack = "??EAIRS"
    full = generate(board, rack, fr_graph).moves

    def across(m: Candidate) -> bool:
        return len({sq // 13 for sq, _, _ in m.tiles}) == 1 and m.size > 1

    assert any(across(m) for m in full) and any(not across(m) and m.size > 1 for m in full)
    # A clock that moves one tick per look: the search stops after a fixed number of anchors.
    ticks = itertools.count()
    monkeypatch.setattr(movegen.time, "monotonic", lambda: float(next(ticks)))
    cut = generate(board, rack, fr_graph, deadline=6.0)
    assert not cut.complete
    assert any(across(m) for m in cut.moves) and any(not across(m) and m.size > 1 for m in cut.moves)


def test_with_three_players_and_the_bag_empty_the_bot_plays_out_its_costly_tiles() -> None:
    board = Board.empty("lexio")
    p = Position(board, "KE", 0, "AEIOUST", (4, 3))
    keeps_k = cand(10, "E")  # 10 points, but the K (10) stays on the rack to the end
    keeps_e = cand(6, "K")  # 6 points, only the E (1) left
    ranked = rank([keeps_k, keeps_e], p, default_model())
    assert ranked[0].move == keeps_e and ranked[0].equity == pytest.approx(6 - 1.5 * 1)
    out = cand(3, "KE")  # going out gains the unseen tiles' value, shared over the two opponents
    assert rank([keeps_k, keeps_e, out], p, default_model())[0].move == out


def test_the_leave_fit_recovers_tile_values_and_synergies_from_noisy_samples() -> None:
    from relay.bots.train_leaves import fit

    # A known truth: a blank is worth 12, an S 4, a Q -8 unless a U is kept with it (pair QU +9), a second
    # copy of a letter -3; observed with noise of s.d. 10, as a next-turn score would be.
    def truth(leave: str) -> float:
        v = (
            12.0 * leave.count("?")
            + 4.0 * ("S" in leave)
            - 8.0 * ("Q" in leave)
            + 9.0 * ("Q" in leave and "U" in leave)
        )
        return v - 3.0 * sum(leave.count(c) - 1 for c in set(leave) if leave.count(c) > 1)

    rng = random.Random(7)
    pool = "??AAAAEEEEEIIIOOUUUSSSRRTTNNLQBCDMP"
    data = []
    for _ in range(12_000):
        leave = "".join(sorted(rng.sample(pool, rng.randint(1, 6))))
        data.append((leave, truth(leave) + rng.gauss(0, 10)))
    model = LeaveModel(fit(data))
    for leave in ("?", "S", "Q", "QU", "EE", "?S", "AEQ"):
        assert model.value(leave) == pytest.approx(truth(leave), abs=2.5), leave
    assert model.value("QU") > model.value("Q") + 6


def test_leave_training_also_measures_made_up_leaves_holding_a_blank_when_asked() -> None:
    from relay.bots.graph import build_graph
    from relay.bots.train_leaves import Collector

    graph = build_graph(["LES", "SEL", "ELLES", "SALE", "ALES", "TALES", "STELE"])
    board = Board.empty("lexio")
    unseen = unseen_tiles(board.variant, board, "AELLSTE")

    def turn(share: float) -> list[tuple[str, float]]:
        seat = Collector(graph, random.Random(1), share, random.Random(2))
        seat.pending = "LE"  # what it kept last turn
        seat(pos("AELLSTE", 80), random.Random(3))
        return seat.samples

    plain = turn(0.0)
    assert [leave for leave, _ in plain] == ["LE"]
    made = turn(1.0)
    assert made[0] == plain[0] and len(made) == 2
    leave, _ = made[1]
    assert leave.startswith("?") and 1 <= len(leave) <= 6
    assert all(leave[1:].count(t) <= (unseen + "AELLSTE").count(t) for t in set(leave[1:]))


def test_looking_at_the_next_players_replies_avoids_opening_a_hook_for_them() -> None:
    """Two plays of the same tiles and score: AB lets the next player hook an S (ABS), BA does not. A level
    with ``replies`` marks each of its best options down by its weight x the next player's best score after
    it, over racks drawn from the unseen tiles, and so plays BA; without it, the tie goes to AB."""
    words = WordList.from_words(["AB", "BA", "ABS"], name="t")
    bot = MoveGenDriver(words)
    graph = bot.warm()
    board = Board.empty("lexio")
    p = Position(board, "AB", 50, "S" * 7, (7,))

    def spelled(move: Candidate | None) -> str:
        assert move is not None
        return "".join(letter for _, letter, _ in move.tiles)

    looks = dataclasses.replace(LEVELS["expert"], replies=2, reply_top=4, reply_weight=0.5)
    static = rank(generate(board, "AB", graph).moves, p, None, with_exchanges=False)
    weighed = {
        o.move: o.equity
        for o in bot._weigh_replies(p, looks, static, random.Random(0), time.monotonic() + 30)
    }
    assert {spelled(o.move) for o in static[:4]} == {"AB", "BA"}
    for o in static[:4]:
        assert o.move is not None
        after = board.with_cells_unchecked((sq, letter) for sq, letter, _ in o.move.tiles)
        reply = max((m.score for m in generate(after, "S" * 7, graph).moves), default=0)
        assert (reply > 0) == (spelled(o.move) == "AB")
        assert weighed[o.move] == pytest.approx(o.equity - 0.5 * reply)
    assert spelled(bot.decide(p, looks, random.Random(0)).move) == "BA"
    # Past its deadline it compares nothing and leaves the ranking as it was.
    assert bot._weigh_replies(p, looks, static, random.Random(0), time.monotonic() - 1) == static
    assert spelled(bot.decide(p, dataclasses.replace(looks, replies=0), random.Random(0)).move) == "AB"
