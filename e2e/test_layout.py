"""Drag (mouse and touch), a phone-sized screen, text contrast, the UI language and shuffle (issue 5).

On the offline demo table (`?demo=1`: a game the engine builds in the page), so no relay state is needed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from e2e_ui import Player
from playwright.sync_api import Page, expect

# Empty playable squares, in reading order.
EMPTY = "document.querySelectorAll('.sq:not(.filled):not(.has-pending):not(.k-wall)')"


def _center(page: Page, selector: str) -> tuple[float, float]:
    box = page.locator(selector).first.bounding_box()
    assert box is not None, selector
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def _empty_square(page: Page) -> str:
    sq = page.evaluate(f"{EMPTY}[0].dataset.sq")
    assert isinstance(sq, str) and sq
    return sq


def _touch_drag(page: Page, source: str, target: str) -> None:
    """A finger drag: touch pointer events as Chromium fires them (Playwright has no touch-drag helper)."""
    page.evaluate(
        """([source, target]) => {
          const a = document.querySelector(source).getBoundingClientRect();
          const b = document.querySelector(target).getBoundingClientRect();
          const at = (r) => [r.left + r.width / 2, r.top + r.height / 2];
          const fire = (type, [x, y], el) => el.dispatchEvent(new PointerEvent(type, {bubbles: true,
              cancelable: true, pointerId: 7, pointerType: 'touch', isPrimary: true, clientX: x, clientY: y,
              button: 0, buttons: type === 'pointerup' ? 0 : 1}));
          const from = at(a), to = at(b), src = document.querySelector(source);
          fire('pointerdown', from, src);
          for (let i = 1; i <= 8; i++) {
            const p = [from[0] + (to[0] - from[0]) * i / 8, from[1] + (to[1] - from[1]) * i / 8];
            fire('pointermove', p, document.elementFromPoint(p[0], p[1]) || document.body);
          }
          fire('pointerup', to, document.elementFromPoint(to[0], to[1]) || document.body);
        }""",
        [source, target],
    )


def test_tiles_are_placed_and_taken_back_by_drag_with_mouse_and_with_touch(players: Any) -> None:
    p: Player = players("Alice", touch=True)
    p.open("/?demo=1")
    page = p.page
    expect(page.get_by_test_id("rack-tile")).to_have_count(7)
    # Mouse: press on the rack's first tile, move across the page, release over an empty square.
    target = _empty_square(page)
    x0, y0 = _center(page, "[data-testid=rack-tile][data-rack='0']")
    x1, y1 = _center(page, f"#sq-{target}")
    page.mouse.move(x0, y0)
    page.mouse.down()
    for i in range(1, 9):
        page.mouse.move(x0 + (x1 - x0) * i / 8, y0 + (y1 - y0) * i / 8)
    page.mouse.up()
    expect(page.locator(f"#sq-{target}.has-pending")).to_have_count(1)
    # Touch: a finger drags the next rack tile to another empty square.
    second = _empty_square(page)
    _touch_drag(page, "[data-testid=rack-tile][data-rack='1']", f"#sq-{second}")
    expect(page.locator(".sq.has-pending")).to_have_count(2)
    expect(page.locator(f"#sq-{second}.has-pending")).to_have_count(1)
    # And a pending tile dragged back onto the rack leaves the board.
    _touch_drag(page, f"#sq-{second}", "#rack")
    expect(page.locator(".sq.has-pending")).to_have_count(1)
    expect(page.locator(f"#sq-{second}.has-pending")).to_have_count(0)


def test_phone_screen_375x667_fits_without_sideways_scroll_and_plays_by_tap(players: Any) -> None:
    p: Player = players("Alice", viewport=(375, 667), touch=True)
    page = p.page
    for path in ("/", "/?demo=1"):
        p.open(path)
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{path}: the page is {overflow}px wider than the screen"
    board = page.locator("#board").bounding_box()
    assert board is not None and board["x"] >= 0 and board["x"] + board["width"] <= 375
    cell = page.locator(".sq").first.bounding_box()
    assert cell is not None and cell["width"] >= 24, f"squares of {cell and cell['width']}px: too small"
    for test_id in ("rack-tile",):
        for box in [page.get_by_test_id(test_id).nth(i).bounding_box() for i in range(7)]:
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 375
    submit = page.locator("[data-act=submit]")
    submit.scroll_into_view_if_needed()
    expect(submit).to_be_in_viewport()
    # Tap a rack tile, then tap a square: the tile goes there and the preview speaks.
    target = _empty_square(page)
    page.get_by_test_id("rack-tile").first.tap()
    page.locator(f"#sq-{target}").tap()
    expect(page.locator(f"#sq-{target}.has-pending")).to_have_count(1)
    expect(page.get_by_test_id("preview")).not_to_be_empty()


CONTRAST = (Path(__file__).with_name("contrast.js")).read_text(encoding="utf-8")


def test_text_contrast_meets_wcag_aa_on_lobby_table_and_dialog(players: Any) -> None:
    p: Player = players("Alice")
    page = p.page
    p.open("/")
    screens = {"lobby": page.evaluate(CONTRAST)}
    p.open("/?demo=2")
    page.focus("#board")
    page.keyboard.press("ArrowRight")
    for letter in [c for c in p.rack() if c.isalpha()][:2]:
        page.keyboard.press(letter)
    expect(page.locator(".sq.has-pending")).to_have_count(2)
    screens["table"] = page.evaluate(CONTRAST)
    page.locator("[data-act=swap]").click()
    expect(page.locator(".modal")).to_have_count(1)
    screens["swap dialog"] = page.evaluate(CONTRAST)
    for name, got in screens.items():
        assert got["checked"] >= 10, f"{name}: only {got['checked']} text nodes checked"
        assert not got["bad"], f"{name}: text below WCAG AA contrast: {got['bad']}"


def test_ui_speaks_the_browsers_language_and_the_header_switch_is_remembered(players: Any) -> None:
    p: Player = players("Alice", locale="fr-FR")
    page = p.page
    p.open("/")
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    expect(page.locator("#lang-switch")).to_have_text("English")
    expect(page.locator("#refresh-tables:visible")).to_contain_text("Actualiser")
    page.locator("#lang-switch").click()
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.locator("#refresh-tables:visible")).to_contain_text("Refresh")
    page.reload()
    page.wait_for_selector("html.ready", state="attached")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.locator("#lang-switch")).to_have_text("Français")


def test_shuffle_reorders_the_rack_and_keeps_its_tiles(players: Any) -> None:
    p: Player = players("Alice")
    p.open("/?demo=1")
    before = p.rack()
    orders = set()
    for _ in range(6):  # 7 tiles: six shuffles all giving back the same order would be a broken shuffle
        p.page.locator("#btn-shuffle").click()
        p.page.wait_for_timeout(100)
        orders.add(p.rack())
        assert sorted(p.rack()) == sorted(before)
    assert orders - {before}, "shuffle never changed the order"
