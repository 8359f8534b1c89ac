"""A newcomer's first taps and clicks count (issue 27, points 1 and 2): the first tap after a finger drag
plays, and a click made while Python is still starting is done once it is ready."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from a11y import assert_no_violations
from e2e_ui import ARTIFACTS, BOOT_MS, Player, Relay, best, box, pick_table, seat
from playwright.sync_api import Page, expect

SHOTS = ARTIFACTS / "issue27b"


def shot(page: Page, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


def finger_drag(page: Page, source: str, target: str) -> None:
    """A real finger drag: touch events through Chromium's input pipeline (CDP), so the browser makes the
    pointer events, and decides itself whether a click follows (it does not after a drag)."""
    a, b = box(page, source), box(page, target)
    x0, y0 = a["x"] + a["width"] / 2, a["y"] + a["height"] / 2
    x1, y1 = b["x"] + b["width"] / 2, b["y"] + b["height"] / 2
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]})
        for i in range(1, 11):
            x, y = x0 + (x1 - x0) * i / 10, y0 + (y1 - y0) * i / 10
            cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
            page.wait_for_timeout(20)  # a finger's pace: ~0.2 s for the whole drag
        page.wait_for_timeout(80)  # the finger rests on the square, then lifts
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    finally:
        cdp.detach()


def rack_tile(page: Page, letter: str) -> str:
    """A selector for the first rack tile showing ``letter`` (its index in the rack string)."""
    idx = page.evaluate(
        """(l) => { for (const t of document.querySelectorAll('#rack [data-testid=rack-tile]'))
                      if (t.querySelector('b').textContent === l) return t.dataset.rack; return null; }""",
        letter,
    )
    assert idx is not None, f"no {letter} on the rack"
    return f"#rack [data-testid=rack-tile][data-rack='{idx}']"


def test_after_a_finger_drag_the_first_tap_on_take_back_and_on_play_does_it(
    players: Any, relay: Relay, planner: Any
) -> None:
    names = ["Alice", "Bob"]
    table_id, move = pick_table(relay, planner, names, lambda st: best(planner, st, blanks=False))
    alice: Player = players("Alice", viewport=(375, 667), touch=True)
    bob: Player = players("Bob")
    seat([alice, bob], relay.url, table_id)
    page = alice.page
    alice.wait_my_turn()
    tiles = list(move.tiles)
    # One tile dragged by a finger, then a single tap on Take back: the tile is back on the rack.
    finger_drag(page, rack_tile(page, tiles[0].letter), f"#sq-{tiles[0].square}")
    expect(page.locator(f"#sq-{tiles[0].square}.has-pending")).to_have_count(1)
    page.touchscreen.tap(*_center(page, "#btn-recall"))
    expect(page.locator(".sq.has-pending")).to_have_count(0)
    # The whole play dragged by a finger, then a single tap on Play: it is played.
    for t in tiles:
        finger_drag(page, rack_tile(page, t.letter), f"#sq-{t.square}")
        expect(page.locator(f"#sq-{t.square}.has-pending")).to_have_count(1)
    shot(page, "01-phone-dragged-before-play")
    page.touchscreen.tap(*_center(page, "#btn-submit"))
    expect(page.locator("[data-testid=sheet-row][data-kind=placed]")).to_have_count(1)
    expect(page.locator(".sq.has-pending")).to_have_count(0)
    expect(bob.page.get_by_test_id("turn")).to_contain_text("Your turn")


def _center(page: Page, selector: str) -> tuple[float, float]:
    page.locator(selector).scroll_into_view_if_needed()
    b = box(page, selector)
    return b["x"] + b["width"] / 2, b["y"] + b["height"] / 2


def test_a_click_on_create_made_while_python_starts_creates_the_table_once_ready(
    players: Any, relay: Relay
) -> None:
    p: Player = players("Alice")
    page = p.page
    # The runtime's download is held until the click is made: the click surely comes before Python.
    held: list[Any] = []
    p.context.route("**/pyodide.asm.wasm*", lambda route: held.append(route))
    page.goto(relay.url + "/")
    # Still starting: the button is there, can be clicked, and says the click is kept.
    create = page.locator("html.booting .shell-en #create-table")
    expect(create).to_be_visible()
    create.click()
    expect(page.locator("html.booting")).to_have_count(1)  # the click did come before Python was ready
    expect(create).to_have_attribute("aria-busy", "true")
    expect(page.locator("#queued-text")).to_be_visible()
    shot(page, "02-create-clicked-while-loading-1280")
    assert_no_violations(page, "home while Python starts, a click queued")
    page.set_viewport_size({"width": 375, "height": 667})
    shot(page, "02-create-clicked-while-loading-375")
    assert_no_violations(page, "home while Python starts, a click queued, phone")
    p.context.unroute("**/pyodide.asm.wasm*")
    for route in held:
        route.fallback()
    page.wait_for_selector("html.ready", state="attached", timeout=BOOT_MS)
    # Once ready, the queued click is done: the table is created and Alice sits at it.
    expect(page).to_have_url(re.compile(r"/t/[^/]+$"))
    expect(page.locator("#seat-list li")).to_have_count(1)
    expect(page.locator("#seat-list li").first).to_contain_text("Alice")
