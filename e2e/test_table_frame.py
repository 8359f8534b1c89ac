"""The table's frame as a player meets it: the turn's switches once joined, not on the invitation; the board
column sized for the board it holds (the classic variant's 15 columns as well as Lexio's 13)."""

from __future__ import annotations

from typing import Any

from e2e_ui import Player, Relay, box, seat
from playwright.sync_api import expect

SIZES = ((375, 667), (1280, 800))


def test_the_invitation_shows_no_sound_or_notify_switch_until_the_visitor_joins(
    players: Any, relay: Relay
) -> None:
    for width, height in SIZES:
        p: Player = players(f"Bea{width}", viewport=(width, height))
        p.open(f"/t/{relay.create_table()}")
        page = p.page
        expect(page.locator("#invite-title")).to_be_visible(timeout=90_000)
        expect(page.locator("#join-table")).to_be_visible()
        # Nobody's turn concerns a visitor yet: the header offers neither switch.
        expect(page.locator("#sound-toggle")).to_have_count(0)
        expect(page.locator("#notify-ask")).to_have_count(0)
        p.shot(f"180-invite-no-switches-{width}")
        page.locator("#join-table").click()
        expect(page.locator("#seat-list li")).to_have_count(1)
        expect(page.locator("#sound-toggle")).to_be_visible()
        expect(page.locator("#notify-ask")).to_be_visible()


def test_the_table_screen_sizes_its_board_column_for_the_classic_boards_fifteen_columns(
    players: Any, relay: Relay
) -> None:
    alice: Player = players("Alice", viewport=SIZES[1])
    bob: Player = players("Bob", viewport=SIZES[0])
    seat([alice, bob], relay.url, relay.create_table(variant="classic"))
    for p, (width, _) in ((alice, SIZES[1]), (bob, SIZES[0])):
        page = p.page
        expect(page.locator("#board .brow").first.locator(".sq")).to_have_count(15)
        board = box(page, "#board")
        assert board["x"] >= 0 and board["x"] + board["width"] <= width, (width, board)  # no overflow
        if width >= 900:
            # The board stays in its column: it neither runs under the side column nor is cut.
            side = box(page, ".col-side")
            assert board["x"] + board["width"] <= side["x"], (board, side)
            status = box(page, "#t-status")
            assert board["x"] + board["width"] <= status["x"] + status["width"] + 0.5, (board, status)
        p.shot(f"181-classic-table-{width}")


# (the offline message's bottom or None, then the tops of the players' line, the status line and the board)
SAMPLE = """() => { const m = document.querySelector('[data-testid=offline-banner]');
  const top = (s) => document.querySelector(s).getBoundingClientRect().top;
  return [m ? m.getBoundingClientRect().bottom : null,
          top('#t-players'), top('#t-status'), top('#board')]; }"""


def test_on_a_phone_the_offline_message_covers_neither_the_players_line_nor_the_clock(
    players: Any, own_relay: Relay
) -> None:
    alice: Player = players("Alice", base=own_relay.url, viewport=SIZES[0])
    bob: Player = players("Bob", base=own_relay.url, viewport=SIZES[1])
    seat([alice, bob], own_relay.url, own_relay.create_table())
    own_relay.kill9()
    for p in (alice, bob):
        # Shown, then gone while each reconnection is tried: each sample is measured in one go.
        shown = None
        for _ in range(150):
            shown = p.page.evaluate(SAMPLE)
            if shown[0] is not None:
                break
            p.page.wait_for_timeout(100)
        tops = set()
        for _ in range(40):  # 4 s: the message goes and comes back with the reconnection tries
            tops.add(round(p.page.evaluate(SAMPLE)[3]))
            p.page.wait_for_timeout(100)
        assert shown is not None and shown[0] is not None, "no offline message"
        bottom, players_top, status_top, _ = shown
        assert bottom <= players_top + 0.5 and bottom <= status_top + 0.5, shown
        assert len(tops) == 1, tops  # the board stays put from one reconnection try to the next
    alice.shot("182-offline-message-phone-table")
    bob.shot("182-offline-message-wide-table")
    own_relay.start()
    for p in (alice, bob):
        expect(p.page.get_by_test_id("offline-banner")).to_have_count(0, timeout=30_000)
