"""The page's frame as a player meets it: the header's controls on a phone, messages that stay, and the
board's coordinate strip on the classic 15x15 board (the replay viewer reads classic records)."""

from __future__ import annotations

from typing import Any

from e2e_ui import ROOT, Player, Relay, box, seat
from playwright.sync_api import expect

CLASSIC = ROOT / "tests" / "engine" / "corpus" / "gcg-classic" / "josh2.gcg"


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
    hdr = box(page, "#hdr")
    assert hdr["height"] <= 40, hdr  # one line: the board keeps its place
    for sel in ("#home-link", "#sound-toggle", "#notify-ask", "#rules-link", "#lang-switch"):
        b = box(page, sel)
        assert b["y"] >= hdr["y"] and b["y"] + b["height"] <= hdr["y"] + hdr["height"] + 0.5, sel
        assert b["x"] + b["width"] <= 375, sel
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    # What is shown is what the controls are called (the hidden words complete them for screen readers).
    expect(page.get_by_role("button", name="♪ Sound: on")).to_be_visible()
    expect(page.get_by_test_id("conn-state")).to_have_text("● connected")
    p.shot("170-phone-header-notify")


def test_the_offline_message_never_covers_the_header(players: Any, own_relay: Relay) -> None:
    alice = players("Alice", base=own_relay.url, viewport=(375, 667))
    bob = players("Bob", base=own_relay.url, viewport=(1280, 800))
    seat([alice, bob], own_relay.url, own_relay.create_table())
    own_relay.kill9()
    for p in (alice, bob):
        # Re-rendered every second and gone while each reconnection is tried: measured in one go, when shown.
        found = None
        for _ in range(100):
            found = p.page.evaluate(
                """() => { const m = document.querySelector('[data-testid=offline-banner]');
                  if (!m) return null;
                  const h = document.querySelector('#hdr').getBoundingClientRect();
                  const b = m.getBoundingClientRect();
                  const l = document.querySelector('#lang-switch').getBoundingClientRect();
                  const hit = document.elementFromPoint(l.x + l.width / 2, l.y + l.height / 2);
                  return [h.bottom, b.top, b.height, hit && hit.closest('#lang-switch') !== null]; }"""
            )
            if found:
                break
            p.page.wait_for_timeout(100)
        assert found, "no offline message"
        hdr_bottom, top, height, lang_usable = found
        assert top >= hdr_bottom - 0.5 and height > 0 and lang_usable, found
    alice.shot("171-offline-message-375")
    own_relay.start()
    for p in (alice, bob):
        expect(p.page.get_by_test_id("offline-banner")).to_have_count(0, timeout=30_000)


def test_the_demo_says_so_in_the_header_line(players: Any) -> None:
    for width, height in ((375, 667), (1280, 800)):
        p: Player = players("Alice", viewport=(width, height))
        p.open("/?demo=1")
        page = p.page
        expect(page.get_by_test_id("demo-banner")).to_be_visible()
        hdr, badge = box(page, "#hdr"), box(page, "[data-testid=demo-banner]")
        assert hdr["height"] <= 48 and badge["y"] + badge["height"] <= hdr["y"] + hdr["height"], (hdr, badge)
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        expect(page.locator("#banner p")).to_have_count(0)  # nothing over the page
        p.shot(f"172-demo-header-{width}")


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
        board = box(page, "#board")
        assert board["x"] + board["width"] <= width, (width, board)  # the board fits a phone
        p.shot(f"173-classic-replay-{width}")
