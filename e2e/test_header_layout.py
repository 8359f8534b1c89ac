"""The page's frame as a player meets it: the header's controls on a phone, messages that stay, and the
board's coordinate strip on the classic 15x15 board (the replay viewer reads classic records)."""

from __future__ import annotations

from typing import Any

from e2e_ui import ROOT, Player, Relay
from playwright.sync_api import Page, expect

CLASSIC = ROOT / "tests" / "engine" / "corpus" / "gcg-classic" / "josh2.gcg"


def _box(page: Page, selector: str) -> dict[str, float]:
    box = page.locator(selector).first.bounding_box()
    assert box is not None, selector
    return box


def test_on_a_phone_notify_me_is_offered_on_the_headers_one_line(players: Any, relay: Relay) -> None:
    p: Player = players("Alice", viewport=(375, 667))
    p.open(f"/t/{relay.create_table()}")
    page = p.page
    page.locator("#join-table").click()
    expect(page.locator("#seat-list li")).to_have_count(1)
    ask = page.locator("#notify-ask")
    expect(ask).to_be_visible()  # a phone player can turn the turn's notifications on
    expect(ask).to_have_text("Notify me")
    expect(page.locator("#sound-toggle")).to_be_visible()
    hdr = _box(page, "#hdr")
    assert hdr["height"] <= 40, hdr  # one line: the board keeps its place
    for sel in ("#home-link", "#sound-toggle", "#notify-ask", "#rules-link", "#lang-switch"):
        b = _box(page, sel)
        assert b["y"] >= hdr["y"] and b["y"] + b["height"] <= hdr["y"] + hdr["height"] + 0.5, sel
        assert b["x"] + b["width"] <= 375, sel
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    # What is shown is what the controls are called (the hidden words complete them for screen readers).
    expect(page.get_by_role("button", name="♪ Sound: on")).to_be_visible()
    expect(page.get_by_test_id("conn-state")).to_have_text("● connected")
    p.shot("170-phone-header-notify")


def test_a_message_that_stays_never_covers_the_header_nor_the_turn(players: Any) -> None:
    for width, height in ((375, 667), (1280, 800)):
        p: Player = players("Alice", viewport=(width, height))
        p.open("/?demo=1")
        page = p.page
        note = page.get_by_test_id("demo-banner")
        expect(note).to_be_visible()
        hdr, msg = _box(page, "#hdr"), _box(page, "[data-testid=demo-banner]")
        assert msg["y"] >= hdr["y"] + hdr["height"] - 0.5, (width, hdr, msg)
        turn = _box(page, "[data-testid=turn]")
        assert turn["y"] >= msg["y"] + msg["height"] - 0.5, (width, msg, turn)
        # The header's controls stay usable: what is under the language switch's centre is the switch.
        lang = _box(page, "#lang-switch")
        hit = page.evaluate(
            "([x, y]) => document.elementFromPoint(x, y).closest('#lang-switch') !== null",
            [lang["x"] + lang["width"] / 2, lang["y"] + lang["height"] / 2],
        )
        assert hit, width
        p.shot(f"171-demo-message-{width}")


def test_the_coordinate_strip_has_the_classic_boards_fifteen_columns(players: Any) -> None:
    p: Player = players("Alice", viewport=(1280, 800))
    p.open("/replay")
    page = p.page
    page.set_input_files("#gcg-file", str(CLASSIC))
    expect(page.get_by_test_id("replay-now")).to_be_visible()
    for width in (1280, 375):
        page.set_viewport_size({"width": width, "height": 800})
        labels = page.locator(".coords.cols span")
        expect(labels).to_have_count(15)
        squares = page.locator("#board .brow").first.locator(".sq")
        expect(squares).to_have_count(15)
        for i in range(15):
            lb, sq = labels.nth(i).bounding_box(), squares.nth(i).bounding_box()
            assert lb is not None and sq is not None
            # Each letter stands over its column, on one line above the board.
            assert abs((lb["x"] + lb["width"] / 2) - (sq["x"] + sq["width"] / 2)) < 2, (width, i, lb, sq)
            assert lb["y"] + lb["height"] <= sq["y"] + 0.5, (width, i)
        board = _box(page, "#board")
        assert board["x"] + board["width"] <= width, (width, board)  # the board fits a phone
        p.shot(f"172-classic-replay-{width}")
