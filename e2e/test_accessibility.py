"""axe-core 4.x (pinned from npm, hash-checked: web/build.py, injected by e2e/a11y.py) reports no violation on
any screen a newcomer meets, at 1280x800 and 375x667, in French and English (issue 11, point 10).

One browser context per person; each screen is checked in the four (size, language) combinations by
resizing the page and using the header's language switch (no reload: the same state, re-rendered)."""

from __future__ import annotations

from typing import Any

from a11y import assert_no_violations
from e2e_plan import Planner
from e2e_ui import Player, Relay, pick_table
from playwright.sync_api import expect

import engine

COMBOS = [((1280, 800), "fr"), ((375, 667), "fr"), ((375, 667), "en"), ((1280, 800), "en")]


def check(p: Player, screen: str) -> None:
    page = p.page
    for size, lang in COMBOS:
        page.set_viewport_size({"width": size[0], "height": size[1]})
        if page.evaluate("document.documentElement.lang") != lang:
            page.locator("#lang-switch").dispatch_event("click")  # also behind an open dialog
            expect(page.locator("html")).to_have_attribute("lang", lang)
        page.wait_for_timeout(150)  # the re-render and the layout of the new size
        assert_no_violations(page, f"{screen} {size[0]}x{size[1]} {lang}")


def test_axe_finds_no_violation_on_any_screen_at_both_sizes_in_both_languages(
    players: Any, relay: Relay, planner: Planner
) -> None:
    names = ["Alice", "Bob"]

    def want(st: engine.GameState) -> Any:
        return "?" in st.seats[0].rack  # Alice's blank opens the blank dialog

    table_id, _ = pick_table(relay, planner, names, want)
    alice, bob = players("Alice"), players("Bob")
    alice.open("/")
    check(alice, "home")
    alice.open(f"/t/{table_id}")
    expect(alice.page.locator("#join-table")).to_be_visible()
    check(alice, "invitation (empty table)")
    alice.page.locator("#join-table").click()
    expect(alice.page.locator("#seat-list li")).to_have_count(1)
    bob.open(f"/t/{table_id}")
    expect(bob.page.locator("#invite-title")).to_contain_text("Alice")
    check(bob, "invitation")
    bob.page.locator("#join-table").click()
    page = alice.page
    expect(page.locator("#seat-list li")).to_have_count(2)
    page.locator("#add-bot").click()
    expect(page.locator("#seat-list li[data-bot]")).to_have_count(1)
    check(alice, "waiting room (host, computer player)")
    check(bob, "waiting room (guest)")
    page.locator("#seat-list li[data-bot] [data-act=remove-bot]").click()
    expect(page.locator("#seat-list li")).to_have_count(2)
    page.locator("#start-game").click()
    alice.wait_my_turn()
    check(alice, "table (idle)")
    # Tiles pending: a letter on the source.
    letter = next(ch for ch in alice.rack() if ch != "?")
    alice.place([("G7", letter, False)])
    check(alice, "table (tiles pending)")
    # The blank dialog.
    page.locator("#rack [data-testid=rack-tile].blank").first.click()
    page.locator("#sq-H7").click()
    expect(page.locator("#blank-dialog")).to_be_visible()
    check(alice, "blank dialog")
    page.keyboard.press("Escape")
    expect(page.locator("#blank-dialog")).to_have_count(0)
    page.locator("#btn-recall").click()
    # The swap dialog.
    page.locator("#btn-swap").click()
    expect(page.locator("#swap-dialog")).to_be_visible()
    check(alice, "swap dialog")
    page.locator("#dialog-cancel").click()
    # A watcher: the invitation to a game in progress, then the watcher's table.
    carol = players("Carol", remember_name=False)
    carol.open(f"/t/{table_id}")
    expect(carol.page.locator("#watch-table")).to_be_visible()
    check(carol, "invitation (game in progress)")
    carol.page.locator("#watch-table").click()
    expect(carol.page.get_by_test_id("watching")).to_be_visible()
    check(carol, "watcher's table")
    # The end (two rounds of passes).
    people = [alice, bob]
    for k in range(4):
        people[k % 2].wait_my_turn()
        people[k % 2].pass_turn()
    expect(alice.page.locator("#end-title")).to_be_visible()
    check(alice, "end screen")
    expect(carol.page.locator("#end-title")).to_be_visible()
    check(carol, "end screen (watcher)")
