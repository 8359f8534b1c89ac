"""On a phone (375x667) the end of a game between two people: the end screen, its analysis and the replay
fit the screen's width (wide tables scroll in their own box; the page never scrolls sideways)."""

from __future__ import annotations

from typing import Any

from a11y import assert_no_violations
from e2e_plan import Planner
from e2e_ui import Relay, short_game
from playwright.sync_api import Page, expect


def _page_width(page: Page) -> int:
    return int(page.evaluate("document.documentElement.scrollWidth"))


def test_on_a_phone_the_end_screen_and_the_replay_never_scroll_sideways(
    players: Any, relay: Relay, planner: Planner
) -> None:
    alice = players("Alice", viewport=(375, 667))
    bob = players("Bob", viewport=(375, 667))
    short_game(relay, planner, alice, bob)
    page = alice.page
    # The final scores show every rack, face up: a wide table, scrolled in its box.
    expect(page.get_by_test_id("final-row")).to_have_count(2)
    assert _page_width(page) <= 375
    page.locator("#ask-analysis").click()
    expect(page.get_by_test_id("analysis")).to_be_visible(timeout=60_000)
    assert _page_width(page) <= 375
    alice.shot("180-phone-end-analysis")
    # The wide tables' boxes are regions the keyboard reaches (axe: scrollable-region-focusable).
    assert_no_violations(page, "the end screen with the analysis, on a phone")
    page.get_by_role("link", name="Replay").click()
    expect(page.get_by_test_id("ra-none")).to_be_visible()
    assert _page_width(page) <= 375
    alice.shot("181-phone-replay")
    assert_no_violations(page, "the replay viewer with the analysis, on a phone")
