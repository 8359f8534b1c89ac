"""Phone first and steady messages (issue 11, points 4 and 5): at 375x667 what a move needs is on one
screen; letters and values never overlap down to 320 px; messages never move the board."""

from __future__ import annotations

from typing import Any

import pytest
from e2e_ui import Player, Relay, box
from playwright.sync_api import Page, expect

# The first free square far from the tiles of the demo board: a placement there is a shape problem.
FAR = "document.querySelectorAll('.sq:not(.filled):not(.has-pending):not(.k-wall)')[40].dataset.sq"


def in_view(page: Page, selector: str, height: int) -> None:
    """Wholly on screen (the status line is re-rendered every tick: Playwright re-finds it)."""
    assert page.viewport_size is not None and page.viewport_size["height"] == height
    expect(page.locator(selector).first).to_be_in_viewport(ratio=1)


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_at_375_by_667_board_rack_actions_feedback_scores_and_clock_show_without_scrolling(
    players: Any, lang: str
) -> None:
    p: Player = players("Alice", viewport=(375, 667), touch=True, locale="fr-FR" if lang == "fr" else "en-US")
    p.open("/?demo=2")
    page = p.page
    expect(page.get_by_test_id("rack-tile").first).to_be_visible()
    page.get_by_test_id("rack-tile").first.click()
    page.locator(f"#sq-{page.evaluate(FAR)}").click()
    expect(page.get_by_test_id("preview-problem")).to_be_visible()
    assert page.evaluate("scrollY") == 0
    for sel in (
        "#board",
        "#rack",
        "#btn-submit",
        "#btn-recall",
        "#btn-shuffle",
        "#btn-direction",
        "#btn-swap",
        "#btn-pass",
        "[data-testid=preview-problem]",
        "[data-testid=reserve]",
        "#countdown",
        "[data-testid=player][data-seat='0'] [data-testid=player-score]",
        "[data-testid=player][data-seat='1'] [data-testid=player-score]",
    ):
        in_view(page, sel, 667)
    # Secondary panels are folded drawers; the keyboard help is one of them, not above the rack.
    for drawer in ("d-journal", "d-unseen", "d-legend", "d-help"):
        expect(page.get_by_test_id(drawer)).not_to_have_attribute("open", "")
    expect(page.locator("#kbd-help")).not_to_be_visible()
    assert box(page, "#d-help")["y"] > box(page, "#btn-pass")["y"]
    p.shot(f"80-phone-problem-{lang}")
    # Back to a valid placement (under the E of GEET): the live total shows in the same place.
    page.locator("#btn-recall").click()
    expect(page.locator(".sq.has-pending")).to_have_count(0)
    page.get_by_test_id("rack-tile").first.click()
    page.locator("#sq-G8").click()
    expect(page.get_by_test_id("preview-total")).to_be_visible()
    in_view(page, "[data-testid=preview-total]", 667)
    in_view(page, "#btn-submit", 667)
    assert page.evaluate("scrollY") == 0


def _overlaps(page: Page) -> list[str]:
    """Tiles (board and rack) whose letter's and value's glyph boxes intersect."""
    return list(
        page.evaluate(
            """() => {
          const rect = (el) => { const r = document.createRange(); r.selectNodeContents(el);
                                 return r.getBoundingClientRect(); };
          const bad = [];
          for (const t of document.querySelectorAll('.sq .tile, #rack .tile')) {
            const b = t.querySelector('b'), s = t.querySelector('sub');
            if (!b || !s) continue;
            const x = rect(b), y = s.getBoundingClientRect();
            const apart = (a, b) => a.right <= b.left + 0.5 || b.right <= a.left + 0.5
                                 || a.bottom <= b.top + 0.5 || b.bottom <= a.top + 0.5;
            if (!apart(x, y))
              bad.push(t.textContent);
          }
          return bad;
        }"""
        )
    )


@pytest.mark.parametrize("width", [320, 375, 1280])
def test_letters_and_values_never_overlap_down_to_320_px(players: Any, width: int) -> None:
    p: Player = players("Alice", viewport=(width, 700))
    p.open("/?demo=2")
    page = p.page
    expect(page.locator(".sq.filled").first).to_be_visible()
    # A wide letter with a two-digit value (W, 10) on the board as well.
    assert page.locator(".sq.filled .tile").count() >= 4
    assert _overlaps(page) == [], width


def test_messages_leave_by_themselves_and_never_move_the_board_or_buttons(players: Any, relay: Relay) -> None:
    alice = players("Alice")
    alice.open("/")
    page = alice.page
    page.locator("#create-table").click()
    expect(page.locator("#share-link")).to_be_visible()
    before = box(page, "#start-game")
    page.locator("#copy-link").click()
    notice = page.get_by_test_id("notice")
    expect(notice).to_be_visible()
    assert box(page, "#start-game") == before  # the banner overlays, it does not push
    expect(notice).to_have_count(0, timeout=10_000)  # and leaves by itself
    # On the table: a shape problem, then its correction, never move the board.
    demo = players("Bob", viewport=(375, 667))
    demo.open("/?demo=2")
    board = box(demo.page, "#board")
    rack = box(demo.page, "#rack")
    demo.page.get_by_test_id("rack-tile").first.click()
    demo.page.locator(f"#sq-{demo.page.evaluate(FAR)}").click()
    expect(demo.page.get_by_test_id("preview-problem")).to_be_visible()
    assert box(demo.page, "#board") == board and box(demo.page, "#rack") == rack


def test_on_a_phone_a_refused_word_and_the_reserve_it_cost_are_seen_without_scrolling(
    players: Any, relay: Relay, planner: Any
) -> None:
    from e2e_plan import unknown_play
    from e2e_ui import pick_table, seat

    names = ["Alice", "Bob"]
    table_id, (bad, unknown) = pick_table(relay, planner, names, lambda st: unknown_play(planner, st, 1))
    alice = players("Alice", viewport=(375, 667), touch=True, locale="fr-FR")
    bob = players("Bob")
    alice.context.add_init_script("localStorage.setItem('lexio:lang', 'fr')")
    seat([alice, bob], relay.url, table_id)
    page = alice.page
    expect(page.get_by_test_id("turn")).to_contain_text("À vous de jouer")
    for t in bad.tiles:
        page.locator("#rack [data-testid=rack-tile]").filter(has_text=t.letter.upper()).first.click()
        page.locator(f"#sq-{t.square}").click()
    expect(page.locator(".sq.has-pending")).to_have_count(len(bad.tiles))
    board = box(page, "#board")
    page.locator("#btn-submit").click()
    refusal = page.get_by_test_id("rejected")
    expect(refusal).to_contain_text(unknown[0])
    expect(page.get_by_test_id("reserve")).to_contain_text("9 essai")
    assert page.evaluate("scrollY") == 0
    for sel in (
        "[data-testid=rejected]",
        "[data-testid=reserve]",
        "#board",
        "#rack",
        "#btn-submit",
        "#countdown",
    ):
        in_view(page, sel, 667)
    assert box(page, "#board") == board
    alice.shot("81-phone-refused-fr")
