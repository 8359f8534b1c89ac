"""A newcomer's home, table links and watching (issue 27, points 3, 11, 12, 13, 16, 17): what Lexio is and a
computer game one click away, a truthful first screen for a link, an invitation that follows the table and
offers Watch at any time, games in progress to watch (the top game on the home page), and endings by passes
counted down and explained."""

from __future__ import annotations

import re
from typing import Any

from a11y import assert_no_violations
from e2e_ui import BOOT_MS, Player, Relay
from playwright.sync_api import expect
from test_first_taps import SHOTS

SIZES = ((1280, 800), (375, 667))


def look(p: Player, name: str) -> None:
    """axe finds nothing on the screen as it is, at both sizes; a screenshot of each is kept to look at."""
    page = p.page
    SHOTS.mkdir(parents=True, exist_ok=True)
    for w, h in SIZES:
        page.set_viewport_size({"width": w, "height": h})
        page.wait_for_timeout(150)
        assert_no_violations(page, f"{name} {w}x{h}")
        page.screenshot(path=str(SHOTS / f"{name}-{w}.png"), full_page=w < 400)
    page.set_viewport_size({"width": 1280, "height": 800})


def test_home_says_what_lexio_is_and_one_click_starts_a_game_against_the_computer_at_the_level_chosen(
    players: Any,
) -> None:
    alice: Player = players("Alice")
    alice.open("/")
    page = alice.page
    expect(page.get_by_test_id("pitch")).to_contain_text("crossing words")
    look(alice, "10-home")
    page.locator("#home-bot-level").select_option("beginner")
    page.locator("#play-computer").click()
    # One click: a private table, the computer seated at the level chosen, and the game under way.
    expect(page.get_by_test_id("turn")).to_be_visible()
    expect(page.get_by_test_id("player")).to_have_count(2)
    expect(page.get_by_test_id("player").nth(1)).to_contain_text("Robot")
    alice.wait_my_turn()
    assert "/t/" in page.url


def test_a_table_link_says_it_is_opening_while_python_loads_never_game_in_progress(
    players: Any, relay: Relay
) -> None:
    table_id = relay.create_table(public=True)
    zoe: Player = players("Zoé")
    held: list[Any] = []
    zoe.context.route("**/pyodide.asm.wasm*", lambda route: held.append(route))
    page = zoe.page
    page.goto(f"{relay.url}/t/{table_id}")
    expect(page.locator("html.booting #invite-title")).to_have_text("Opening the table…")
    expect(page.locator("main")).not_to_contain_text("Game in progress")
    expect(page.locator("#board")).to_have_count(0)
    look(zoe, "11-link-while-loading")
    zoe.context.unroute("**/pyodide.asm.wasm*")
    for route in held:
        route.fallback()
    page.wait_for_selector("html.ready", state="attached", timeout=BOOT_MS)
    expect(page.locator("#invite-title")).to_have_text("A table is waiting for you")


def test_an_invitation_follows_the_start_live_watch_is_offered_at_any_time_and_live_games_are_listed(
    players: Any, relay: Relay
) -> None:
    table_id = relay.create_table(public=True)
    alice: Player = players("Alice")
    alice.open(f"/t/{table_id}")
    alice.page.locator("#join-table").click()
    expect(alice.page.locator("#seat-list li")).to_have_count(1)
    relay.sit(table_id, "Bob")
    expect(alice.page.locator("#seat-list li")).to_have_count(2)
    # Two visitors open the link before the start: each is offered Join and Watch.
    yann: Player = players("Yann")
    zoe: Player = players("Zoé", viewport=(375, 667))
    for p in (yann, zoe):
        p.open(f"/t/{table_id}")
        expect(p.page.get_by_test_id("invite-info")).to_contain_text("2 free seats")
        expect(p.page.locator("#join-table")).to_be_visible()
        expect(p.page.locator("#watch-table")).to_be_visible()
    look(yann, "12-invitation-before-start")
    zoe.page.locator("#watch-table").click()
    expect(zoe.page.locator("#wait-title")).to_be_visible()  # watching the waiting room
    # The host starts: the waiting visitor's invitation follows (no reload), the watcher sees the game.
    alice.page.locator("#start-game").click()
    expect(yann.page.locator("#invite-title")).to_have_text("Game in progress", timeout=10_000)
    expect(yann.page.get_by_test_id("invite-info")).not_to_contain_text("free seat")
    expect(yann.page.locator("#join-table")).to_have_count(0)
    expect(yann.page.locator("#watch-table")).to_be_visible()
    look(yann, "12-invitation-after-start")
    zpage = zoe.page
    expect(zpage.locator("#board")).to_be_visible()
    expect(zpage.get_by_test_id("watching")).to_be_visible()
    expect(zpage.get_by_test_id("reserve")).to_have_count(0)
    expect(zpage.get_by_test_id("help-reserve")).to_have_count(0)
    expect(zpage.locator("main")).not_to_contain_text("Reserve of refusals")
    look(zoe, "12-watcher-table")
    # Home: the game in progress is the top game, with its players, scores, move and watchers.
    yann.page.locator("#invite-home").click()
    top = yann.page.get_by_test_id("top-game")
    expect(top).to_contain_text("Alice")
    expect(top).to_contain_text("Bob")
    expect(top).to_contain_text("move 1")
    expect(top).to_contain_text("1 watching")
    expect(yann.page.get_by_test_id("table-list")).not_to_contain_text("Alice")  # started: not open
    look(yann, "13-home-top-game")
    top.locator("[data-act=watch-game]").click()
    expect(yann.page).to_have_url(re.compile(f"/t/{table_id}$"))
    expect(yann.page.get_by_test_id("watching")).to_be_visible()
    for p, text in ((alice, "2 watching"), (zoe, "2 watching")):
        expect(p.page.locator("#t-status [data-testid=watchers]")).to_have_text(text)


def test_a_table_whose_creator_left_leaves_the_open_list_at_once(players: Any, relay: Relay) -> None:
    table_id = relay.create_table(public=True)
    lea: Player = players("Léa")
    lea.open(f"/t/{table_id}")
    lea.page.locator("#join-table").click()
    expect(lea.page.locator("#seat-list li")).to_have_count(1)
    bob: Player = players("Bob")
    bob.open("/")
    expect(bob.page.get_by_test_id("open-table").filter(has_text="Léa")).to_have_count(1)
    lea.page.locator("#leave-table").click()
    expect(lea.page.locator("#home-title")).to_be_visible()
    bob.page.locator("#refresh-tables").click()
    expect(bob.page.get_by_test_id("open-table").filter(has_text="Léa")).to_have_count(0)
    expect(bob.page.get_by_test_id("table-list")).not_to_contain_text("—")


def test_passes_count_down_the_turns_left_and_the_end_screen_says_why_the_game_ended(
    players: Any, relay: Relay
) -> None:
    table_id = relay.create_table()
    alice: Player = players("Alice")
    bob: Player = players("Bob", viewport=(375, 667))
    for i, p in enumerate((alice, bob)):
        p.open(f"/t/{table_id}")
        p.page.locator("#join-table").click()
        expect(alice.page.locator("#seat-list li")).to_have_count(i + 1)
    alice.page.locator("#start-game").click()
    alice.wait_my_turn()
    expect(alice.page.get_by_test_id("scoreless-left")).to_have_count(0)  # bag full, nobody passed
    alice.pass_turn()
    for p, left in ((alice, "3 more turns"), (bob, "3 more turns")):
        expect(p.page.get_by_test_id("scoreless-left")).to_contain_text(left)
    look(bob, "17-scoreless-count")
    bob.wait_my_turn()
    bob.pass_turn()
    alice.wait_my_turn()
    alice.pass_turn()
    expect(bob.page.get_by_test_id("scoreless-left")).to_contain_text("1 more turn without a placement")
    bob.wait_my_turn()
    bob.pass_turn()
    for p in (alice, bob):
        expect(p.page.locator("#end-title")).to_be_visible()
        expect(p.page.get_by_test_id("end-reason")).to_contain_text("Nobody placed a word for two rounds")
        expect(p.page.get_by_test_id("end-reason")).to_contain_text("4 turns in a row")
    look(alice, "17-end-reason")
