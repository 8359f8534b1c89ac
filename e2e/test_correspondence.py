"""Issue 31 (correspondence play) in real Chromium: two registered players (passkeys on Chromium's virtual
authenticator) make a table of one day a turn from home, play two moves (each passes once), and each sees
the game in "My games" on home with whose turn it is and the time left, in words. axe at 1280x800 and
375x667, screenshots in e2e/artifacts/issue31-correspondence/.

Pages are opened at http://localhost:PORT: browsers refuse WebAuthn on an IP address."""

from __future__ import annotations

import re
from typing import Any

from accountui import look, registered
from e2e_ui import ARTIFACTS, Player, Relay
from playwright.sync_api import Page, expect

SHOTS = ARTIFACTS / "issue31-correspondence"
DAY = 86_400


def home_page(p: Player) -> Page:
    """A second tab of the player's browser on home (the game's tab stays at the table)."""
    page = p.context.new_page()
    page.on("pageerror", lambda e: p.errors.append(str(e)))
    page.goto(p.base + "/")
    page.wait_for_selector("html.ready", state="attached")
    return page


def test_a_one_day_game_between_two_registered_players_is_in_both_homes_with_whose_turn_and_time_left(
    players: Any, relay: Relay
) -> None:
    zoe, z_nick = registered(players, relay, "Zoe")
    max_, m_nick = registered(players, relay, "Max")

    # Zoé chooses one day a turn (offered to registered players only) and makes the table.
    page = zoe.page
    page.locator("#turn-select").select_option(str(DAY))
    page.locator("#create-table").click()
    expect(page.locator("#wait-title")).to_be_visible()
    table_id = page.locator("#share-link").input_value().rstrip("/").split("/t/")[-1]
    max_.open(f"/t/{table_id}")
    max_.page.locator("#join-table").click()
    expect(page.get_by_test_id("seat")).to_have_count(2)
    page.locator("#start-game").click()
    for p in (zoe, max_):
        expect(p.page.get_by_test_id("turn")).to_be_visible()

    # Two moves: each passes once; it is Zoé's turn again.
    for p in (zoe, max_):
        p.wait_my_turn()
        p.pass_turn()
    zoe.wait_my_turn()

    z_home = home_page(zoe)
    live = z_home.get_by_test_id("my-live")
    expect(live).to_have_count(1)
    expect(live).to_have_attribute("data-table", table_id)
    expect(live).to_contain_text("Your turn")
    expect(live).to_contain_text("1 day a move")
    expect(live.get_by_test_id("my-time-left")).to_have_text(
        re.compile(r"^(23 hours and \d+ minutes?|1 day) left$")
    )
    expect(live.get_by_test_id("my-last-move")).to_have_text(f"Last move: {m_nick} passed")
    expect(z_home.get_by_test_id("my-count")).to_contain_text("Your turn in 1 game")
    expect(z_home).to_have_title(re.compile(r"^\(1\) Lexio"))
    look(z_home, SHOTS, "10-my-games-your-turn", full_page=True)

    m_home = home_page(max_)
    m_live = m_home.get_by_test_id("my-live")
    expect(m_live).to_have_count(1)
    expect(m_live).to_contain_text(f"{z_nick}'s turn")
    expect(m_live.get_by_test_id("my-time-left")).to_contain_text("left")
    expect(m_home.get_by_test_id("my-count")).to_have_count(0)
    look(m_home, SHOTS, "11-my-games-their-turn", full_page=True)

    # Opening the game goes straight to the table.
    z_home.get_by_role("link", name=re.compile(r"^Play: game with")).click()
    expect(z_home.get_by_test_id("turn")).to_contain_text("Your turn")
    for p in (zoe, max_):
        assert not p.errors, p.errors
