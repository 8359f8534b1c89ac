"""Whole games and scoring, played through the UI in real Chromium (issue 6, points 1 and 3)."""

from __future__ import annotations

import json
import re
import urllib.request
from typing import Any

from e2e_plan import Planner, features, plan_showcase
from e2e_ui import SEED, NoPlay, Player, Relay, best, pick_table, place_and_submit, seat
from playwright.sync_api import expect

import engine
from engine.gcg import GcgMove, parse_gcg


def gcg_totals(text: str) -> dict[str, int]:
    """Each nick's last running total in the relay's GCG record (the journal, as published)."""
    totals: dict[str, int] = {}
    for item in parse_gcg(text).items:
        if isinstance(item, GcgMove) and item.total is not None:
            totals[item.nick] = item.total
    return totals


def test_whole_game_two_players_scores_match_journal_and_end_shows_racks_and_winner(
    players: Any, relay: Relay, planner: Planner
) -> None:
    alice, bob = players("Alice", remember_name=False), players("Bob", remember_name=False)
    # Alice creates the table from the lobby; Bob joins with the shared link, as newcomers would.
    alice.open("/")
    alice.page.locator("#name-input").fill("Alice")
    alice.page.locator("#create-table").click()
    link = alice.page.locator("#share-link")
    expect(link).to_be_visible()
    url = link.input_value()
    bob.open("/")
    bob.page.locator("#name-input").fill("Bob")
    bob.page.locator("#link-input").fill(url)
    bob.page.locator("#join-link").click()
    expect(alice.page.locator("#seat-list li")).to_have_count(2)
    alice.shot("01-waiting-room")
    alice.page.locator("#start-game").click()
    table_id = alice.table_id()

    st = planner.deal(SEED, table_id, ["Alice", "Bob"], 120)
    people = [alice, bob]
    for i, p in enumerate(people):
        expect(p.page.locator("#rack [data-testid=rack-tile]")).to_have_count(7)
        assert sorted(p.rack()) == sorted(st.seats[i].rack), "the seeded deal differs from the engine's"

    # Three real placements (the planner's highest-scoring move each time), then passes until the table ends
    # the game after 2 x seats scoreless turns. The lobby's table id, hence the deal, is random: a rack with
    # no play passes its turn.
    placed = 0
    while placed < 3 and st.status == "playing":
        seat_no = st.turn
        assert seat_no is not None
        try:
            move = best(planner, st)
        except NoPlay:
            people[seat_no].wait_my_turn()
            people[seat_no].pass_turn()
            st = planner.play(st, engine.Pass())
            continue
        placed += 1
        shot = "02-game-in-progress" if placed == 3 else None
        preview, score = place_and_submit(people[seat_no], move, [people[1 - seat_no]], shot=shot)
        assert preview == score == features(st, move)["total"]
        st = planner.play(st, move)
        for p in people:
            expect(p.page.get_by_test_id("player-score")).to_have_text([str(s.score) for s in st.seats])
    while st.status == "playing":
        p = people[st.turn or 0]
        p.wait_my_turn()
        p.pass_turn()
        st = planner.play(st, engine.Pass())
        if st.status == "playing":
            people[st.turn or 0].wait_my_turn()

    result = st.result
    assert result is not None and result.reason == "scoreless"
    for p in people:
        expect(p.page.locator("#end-title")).to_be_visible()
        rows = p.page.get_by_test_id("final-row")
        expect(rows).to_have_count(2)
        expect(p.page.get_by_test_id("final-score")).to_have_text([str(s) for s in result.scores])
        for i in range(2):
            # Every rack, face up, including the opponent's.
            expect(rows.nth(i).locator(".rack-face .tile")).to_have_count(len(result.racks[i]))
            faces = "".join(rows.nth(i).locator(".rack-face .tile b").all_inner_texts())
            assert sorted(faces) == sorted(result.racks[i])
        winners = ", ".join(["Alice", "Bob"][w] for w in result.winners)
        expect(p.page.get_by_test_id("winners")).to_contain_text(winners)
    alice.shot("03-end-screen")
    # The scores the UI showed are the journal's: the relay's GCG record has the same totals.
    record = relay.gcg(table_id)
    totals = gcg_totals(record)
    assert totals == {"Alice": result.scores[0], "Bob": result.scores[1]}
    # ...and the end screen's download button saves that very record.
    with alice.page.expect_download() as download:
        alice.page.locator("#download-gcg").click()
    assert download.value.suggested_filename.endswith(".gcg")
    with open(download.value.path(), encoding="utf-8") as f:
        assert f.read() == record


def test_preview_score_equals_accepted_score_with_blank_crossing_and_bingo(
    players: Any, relay: Relay, planner: Planner
) -> None:
    names = ["Alice", "Bob"]

    def want(st: engine.GameState) -> Any:
        if "?" not in st.seats[0].rack and "?" not in st.seats[1].rack:
            return None
        plan = plan_showcase(planner, st, max_moves=6)
        return plan

    table_id, plan = pick_table(relay, planner, names, want)
    people: list[Player] = [players(n) for n in names]
    seat(people, relay.url, table_id)
    st = planner.deal(SEED, table_id, names, 120)
    seen: set[str] = set()
    for k, move in enumerate(plan):
        assert st.turn is not None
        f = features(st, move)
        p, other = people[st.turn], people[1 - st.turn]
        assert sorted(p.rack()) == sorted(st.seats[st.turn].rack)
        p.place([(t.square, t.letter, t.blank) for t in move.tiles])
        expect(p.page.get_by_test_id("preview-total")).to_have_text(f"{f['total']} points")
        if f["bingo"]:
            expect(p.page.get_by_test_id("preview")).to_contain_text("+30 (7 tiles)")
        if f["crossing"]:
            expect(p.page.get_by_test_id("preview")).to_contain_text("crossing \u00d72")
        p.shot(f"10-preview-{k}-{'-'.join(x for x in ('blank', 'bingo', 'crossing') if f[x]) or 'plain'}")
        p.page.locator("#btn-recall").click()
        expect(p.page.locator(".sq.has-pending")).to_have_count(0)
        preview, score = place_and_submit(p, move, [other])
        assert preview == score == f["total"], f"preview {preview}, accepted {score}, engine {f['total']}"
        seen |= {x for x in ("blank", "bingo", "crossing") if f[x]}
        st = planner.play(st, move)
    assert seen == {"blank", "bingo", "crossing"}


def test_preview_breakdown_states_each_multiplier_once(players: Any, relay: Relay, planner: Planner) -> None:
    names = ["Alice", "Bob"]

    def want(st: engine.GameState) -> Any:
        return plan_showcase(planner, st, max_moves=6, goals=("crossing",))

    table_id, plan = pick_table(relay, planner, names, want)
    people: list[Player] = [players(n) for n in names]
    seat(people, relay.url, table_id)
    st = planner.deal(SEED, table_id, names, 120)
    for move in plan[:-1]:
        assert st.turn is not None
        place_and_submit(people[st.turn], move, [people[1 - st.turn]])
        st = planner.play(st, move)
    assert st.turn is not None
    p, move = people[st.turn], plan[-1]
    p.wait_my_turn()
    p.place([(t.square, t.letter, t.blank) for t in move.tiles])
    words = engine.analyse(st.board, list(move.tiles)).to_dict()["words"]
    expect(p.page.get_by_test_id("preview-word")).to_have_count(len(words))
    shown = p.page.get_by_test_id("preview-word").all_inner_texts()
    p.shot("11-preview-crossing-breakdown")
    for w, text in zip(words, shown, strict=True):
        # Every "xN" after the ";" is a multiplier of the whole word: their product must be the engine's.
        mults = text.split(";", 1)[1] if ";" in text else ""
        product = 1
        for n in re.findall(r"\u00d7(\d+)", mults):
            product *= int(n)
        assert product == w["word_mult"], f"{text!r}: shown x{product}, the word is x{w['word_mult']}"


def test_new_table_with_the_same_players_seats_both_at_the_new_table(
    players: Any, relay: Relay, planner: Planner
) -> None:
    names = ["Alice", "Bob"]
    table_id = relay.create_table()
    alice, bob = people = [players(n) for n in names]
    seat(people, relay.url, table_id)
    st = planner.deal(SEED, table_id, names, 120)
    while st.status == "playing":  # two rounds of passes end the game
        p = people[st.turn or 0]
        p.wait_my_turn()
        p.pass_turn()
        st = planner.play(st, engine.Pass())
    for p in people:
        expect(p.page.locator("#end-title")).to_be_visible()
    # Bob asks: he goes to the new table at once and takes its first seat.
    bob.page.locator("#new-table").click()
    expect(bob.page).not_to_have_url(re.compile(re.escape(table_id)))
    new_id = bob.table_id()
    expect(bob.page.locator("#seat-list li")).to_have_count(1)
    # Alice, still on the end screen, is told who proposes it and joins with one click.
    offer = alice.page.get_by_test_id("rematch-offer")
    expect(offer).to_contain_text("Bob proposes a new table")
    alice.shot("80-rematch-offer")
    alice.page.locator("#join-rematch").click()
    expect(alice.page).to_have_url(re.compile(f"/t/{re.escape(new_id)}"))
    for p in people:
        expect(p.page.locator("#seat-list li")).to_have_count(2)
        expect(p.page.locator("#seat-list li").first).to_contain_text("Bob")
        expect(p.page.locator("#seat-list li").nth(1)).to_contain_text("Alice")
    # Same players, same settings: Bob (seat 0) starts the new game.
    bob.page.locator("#start-game").click()
    for p in people:
        expect(p.page.get_by_test_id("turn")).to_be_visible()
    # The old table keeps the link (journaled): its summary names the new table.
    with urllib.request.urlopen(f"{relay.url}/api/tables/{table_id}", timeout=5) as r:
        assert json.loads(r.read())["rematch"]["table"] == new_id
