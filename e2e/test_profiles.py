"""Issue 29, point 4, in real Chromium: two registered players (passkeys on Chromium's virtual authenticator)
play a game; during it "My games" on home shows it live (whose turn, in words), after it the finished game;
the profile shows the game, the statistics and the opponent's link; the head-to-head; an unknown nickname.
axe at 1280x800 and 375x667, screenshots in e2e/artifacts/issue29-profile/.

Pages are opened at http://localhost:PORT: browsers refuse WebAuthn on an IP address."""

from __future__ import annotations

import re
from typing import Any

from accountui import look, registered
from e2e_plan import Planner, features
from e2e_ui import ARTIFACTS, Player, Relay, pick_table, place_and_submit, seat
from playwright.sync_api import Page, expect

SHOTS = ARTIFACTS / "issue29-profile"


def home_page(p: Player) -> Page:
    """A second tab of the player's browser on home (the game's tab stays at the table)."""
    page = p.context.new_page()
    page.on("pageerror", lambda e: p.errors.append(str(e)))
    page.goto(p.base + "/")
    page.wait_for_selector("html.ready", state="attached")
    return page


def test_my_games_then_the_profile_its_games_stats_opponent_link_and_head_to_head(
    players: Any, relay: Relay, planner: Planner
) -> None:
    alice, a_nick = registered(players, relay, "Ann")
    bob, b_nick = registered(players, relay, "Ben")

    def first(st: Any) -> Any:
        # A first play worth 25 or more: the game ends by passes, racks counted off, and a tie is unlikely.
        moves = planner.moves(st)
        top = max(moves, key=lambda m: (features(st, m)["total"], -len(m.tiles))) if moves else None
        return top if top is not None and features(st, top)["total"] >= 25 else None

    table_id, move = pick_table(relay, planner, [a_nick, b_nick], first)
    seat([alice, bob], relay.url, table_id)
    _, points = place_and_submit(alice, move, [bob])
    bob.wait_my_turn()

    # During the game: "My games" says whose turn it is, in words, and links to the table.
    b_home = home_page(bob)
    live = b_home.get_by_test_id("my-live")
    expect(live).to_have_count(1)
    expect(live).to_have_attribute("data-table", table_id)
    expect(live).to_contain_text("Your turn")
    expect(live.get_by_role("link", name=re.compile(f"^Play: game with {a_nick}, {b_nick}$"))).to_be_visible()
    look(b_home, SHOTS, "10-my-games-live", full_page=True)
    a_home = home_page(alice)
    expect(a_home.get_by_test_id("my-live")).to_contain_text(f"{b_nick}'s turn")
    expect(a_home.get_by_test_id("my-table")).to_have_count(0)  # this browser's table: listed once, above
    a_home.close()
    b_home.close()

    for p in (bob, alice, bob, alice):
        p.wait_my_turn()
        p.pass_turn()
    for p in (alice, bob):
        expect(p.page.locator("#end-title")).to_be_visible()

    # Alice's profile, from the header's menu (no reload: the same page keeps running).
    page = alice.page
    page.get_by_test_id("account-name").click()
    page.locator("#menu-profile").click()
    expect(page).to_have_url(re.compile(f"/u/{a_nick}$"))
    expect(page.locator("#prof-title")).to_contain_text(a_nick)
    expect(page.locator("#prof-title")).to_be_focused()
    expect(page.get_by_test_id("member-since")).to_contain_text("Member since")
    row = page.get_by_test_id("game-row")
    expect(row).to_have_count(1)
    expect(row).to_have_attribute("data-table", table_id)
    # The deal decides who wins (a game ended by passes takes the racks' values off the scores).
    result = row.locator("td.res").inner_text()
    assert result in ("Win", "Draw", "Loss"), result
    stats = page.get_by_test_id("stats")
    expect(stats.locator("[data-stat=games]")).to_have_text("1")
    if result != "Draw":  # (the relay counts a shared top score among the wins: see the report)
        expect(stats.locator("[data-stat=wins]")).to_have_text("1 (100%)" if result == "Win" else "0 (0%)")
    expect(stats.locator("[data-stat=best_play]")).to_contain_text(f"{points} points")
    expect(page.locator("table.games caption")).to_have_text(f"{a_nick}'s finished games, newest first")
    look(page, SHOTS, "11-profile", full_page=True)

    # The opponent's name is a link to their profile, where the same game is a loss.
    row.get_by_role("link", name=b_nick, exact=True).click()
    expect(page).to_have_url(re.compile(f"/u/{b_nick}$"))
    expect(page.locator("#prof-title")).to_contain_text(b_nick)
    theirs = {"Win": "Loss", "Loss": "Win", "Draw": "Draw"}[result]
    expect(page.get_by_test_id("game-row").locator("td.res")).to_have_text(theirs)
    # The viewer against this player: the head-to-head.
    page.locator("#versus-you").click()
    expect(page).to_have_url(re.compile(f"/u/{b_nick}\\?vs={a_nick}$"))
    counts = {"Win": "1 win, 0 draws, 0 losses", "Draw": "0 wins, 1 draw, 0 losses"}
    expect(page.get_by_test_id("versus-record")).to_have_text(
        f"{b_nick} against {a_nick}: {counts.get(theirs, '0 wins, 0 draws, 1 loss')}."
    )
    expect(page.get_by_test_id("versus").get_by_test_id("game-row")).to_have_count(1)
    look(page, SHOTS, "12-head-to-head", full_page=True)
    # Back: the profile again (the browser's history holds each address).
    page.go_back()
    expect(page).to_have_url(re.compile(f"/u/{b_nick}$"))
    expect(page.get_by_test_id("compare")).to_be_visible()

    # The game's link opens its end screen (and from there its replay).
    page.get_by_test_id("game-row").get_by_role("link", name=re.compile("^View the game")).click()
    expect(page).to_have_url(re.compile(f"/t/{table_id}$"))
    expect(page.locator("#end-title")).to_be_visible()

    # Home after the game: nothing live, the finished game, and the way to the full list.
    page.locator("#home-link").click()
    recent = page.get_by_test_id("my-recent")
    expect(recent).to_have_count(1)
    expect(recent.locator(".res")).to_have_text(result)
    expect(page.get_by_test_id("my-live")).to_have_count(0)
    look(page, SHOTS, "13-my-games-recent", full_page=True)
    page.locator("#my-all").click()
    expect(page).to_have_url(re.compile(f"/u/{a_nick}$"))

    # A nickname nobody has: said plainly.
    page.goto(alice.base + "/u/nobody_here_x")
    page.wait_for_selector("html.ready", state="attached")
    expect(page.locator("#prof-title")).to_have_text("No such player")
    look(page, SHOTS, "14-no-such-player", full_page=True)
