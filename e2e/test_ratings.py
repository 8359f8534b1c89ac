"""Issue 30 in real Chromium: a registered player creates a rated table, another joins by its link; the
waiting room says it is rated and shows both ratings ("?" while provisional) and their win chances; they play
to the end, and both end screens show each player's rating change; the profile then shows the rating with its
chart and data table, and the leaderboards screen its rules. axe at 1280x800 and 375x667, screenshots in
e2e/artifacts/issue30/.

Pages are opened at http://localhost:PORT: browsers refuse WebAuthn on an IP address."""

from __future__ import annotations

import re
from typing import Any

from accountui import look, registered
from e2e_ui import ARTIFACTS, Relay, pass_to_end
from playwright.sync_api import expect

SHOTS = ARTIFACTS / "issue30"


def test_a_rated_game_between_two_registered_players_shows_ratings_chances_changes_and_the_profile_chart(
    players: Any, relay: Relay
) -> None:
    ann, a_nick = registered(players, relay, "Ann")
    ben, b_nick = registered(players, relay, "Ben")

    # Ann makes a rated table from home (a guest is not offered the choice).
    page = ann.page
    page.locator("#rated-check").check()
    page.locator("#create-table").click()
    expect(page.locator("#wait-title")).to_be_visible()
    expect(page.locator(".rated-kind")).to_contain_text("Rated game")
    expect(page.locator("#add-bot")).to_have_count(0)  # no computer player at a rated table
    link = page.locator("#share-link").input_value()
    table_id = link.rstrip("/").split("/t/")[-1]

    ben.open(f"/t/{table_id}")
    ben.page.locator("#join-table").click()
    seats = page.get_by_test_id("seat")
    expect(seats).to_have_count(2)
    for i in range(2):
        expect(seats.nth(i).get_by_test_id("rating")).to_contain_text("?")
        expect(seats.nth(i)).to_contain_text("chance to win")
    look(page, SHOTS, "10-rated-waiting-room", french=True)
    page.locator("#start-game").click()
    for p in (ann, ben):
        expect(p.page.get_by_test_id("turn")).to_be_visible()
        expect(p.page.get_by_test_id("players").get_by_test_id("rating")).to_have_count(2)

    # Everyone passes until the game ends (scoreless turns end it).
    pass_to_end([ann.page, ben.page])
    for p in (ann, ben):
        expect(p.page.locator("#end-title")).to_be_visible()
        rows = p.page.get_by_test_id("final-row")
        expect(rows).to_have_count(2)
        for i in range(2):
            expect(rows.nth(i).get_by_test_id("rating-change")).to_have_text(
                re.compile(r"^\((\+\d+|\u2212\d+|±0)")
            )
    look(page, SHOTS, "11-rated-end", french=True)

    # Ann's profile: the rapid/normal rating, its chart and the same points in a table.
    page.goto(ann.base + f"/u/{a_nick}")
    page.wait_for_selector("html.ready", state="attached")
    ratings = page.get_by_test_id("ratings")
    expect(ratings).to_contain_text("1 rated game")
    expect(ratings.get_by_test_id("rating-chart")).to_have_count(1)
    expect(ratings.get_by_test_id("rating-table").locator("tbody tr")).to_have_count(1)
    look(page, SHOTS, "12-profile-ratings", full_page=True)

    # The leaderboards: a provisional player is not listed yet, and the page says why.
    page.goto(ann.base + "/leaderboard/normal")
    page.wait_for_selector("html.ready", state="attached")
    expect(page.locator("#board-title")).to_contain_text("Top players")
    expect(page.get_by_test_id("board-mine")).to_contain_text("not listed yet")
    look(page, SHOTS, "13-leaderboard", french=True)
    assert b_nick
