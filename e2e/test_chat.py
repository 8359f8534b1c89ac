"""Table chat in real Chromium (issue 12, point 5): seen in another context within a second, a hostile
message shown as text, the watchers' channel apart, a local mute, the history after a reload."""

from __future__ import annotations

import time
from typing import Any

from e2e_ui import Player, Relay
from playwright.sync_api import expect

HOSTILE = '<img src=x onerror="window.__pwned=1"> <a href="http://example.com">click</a> & <b>bold</b>'


def say(p: Player, text: str) -> None:
    box = p.page.locator("#chat-input")
    box.fill(text)
    box.press("Enter")
    expect(p.page.locator("#chat-input")).to_have_value("")


def test_chat_between_seats_and_watchers_plain_text_mute_and_history(players: Any, relay: Relay) -> None:
    table_id = relay.create_table()
    alice, bob = people = [players("Alice"), players("Bob")]
    # Before the start, in the waiting room: the seats talk already.
    for p in people:  # the invitation link, then Join (as e2e_ui.seat does, without starting)
        p.open(f"/t/{table_id}")
        p.page.locator("#join-table").click()
    expect(alice.page.locator("#seat-list li")).to_have_count(2)
    say(bob, "prêt ?")
    expect(alice.page.locator("[data-testid=chat-seats] [data-testid=chat-msg]")).to_contain_text(["prêt ?"])
    alice.shot("142-chat-waiting-room")
    alice.page.locator("#start-game").click()
    for p in people:
        expect(p.page.get_by_test_id("turn")).to_be_visible()
    carol = players("Carol")  # arrives after the start: watches
    carol.open(f"/t/{table_id}")
    carol.page.locator("#watch-table").click()  # the invitation to a running game: watch it
    expect(carol.page.get_by_test_id("turn")).to_be_visible()
    # One context to another within a second.
    t0 = time.monotonic()
    say(alice, "Bonne partie !")
    expect(bob.page.locator("[data-testid=chat-seats] [data-testid=chat-msg]").nth(1)).to_have_text(
        "Alice Bonne partie ! mute", timeout=1_000
    )
    assert time.monotonic() - t0 < 2.5  # typing and sending included
    expect(carol.page.locator("[data-testid=chat-seats] [data-testid=chat-msg]")).to_have_count(2)
    # A hostile message is text: no element made from it, no script run, no link.
    say(bob, HOSTILE)
    line = alice.page.locator("[data-testid=chat-seats] [data-testid=chat-msg]").nth(2)
    expect(line.locator(".text")).to_have_text(HOSTILE)
    assert alice.page.locator("#t-chat img, #t-chat a, #t-chat b:not(.who)").count() == 0
    assert alice.page.evaluate("window.__pwned === undefined")
    # The watcher writes in the watchers' channel, shown apart to the seats.
    say(carol, "allez Bob")
    expect(alice.page.locator("[data-testid=chat-watchers] [data-testid=chat-msg]")).to_contain_text(
        ["allez Bob"]
    )
    expect(alice.page.locator("[data-testid=chat-seats]")).not_to_contain_text("allez Bob")
    alice.page.set_viewport_size({"width": 1280, "height": 800})
    alice.shot("140-chat-1280")
    # Alice mutes Bob on her side only.
    alice.page.locator("[data-testid=chat-seats] [data-act=chat-mute][data-arg=Bob]").first.click()
    expect(alice.page.locator("[data-testid=chat-seats]")).not_to_contain_text("bold")
    expect(bob.page.locator("[data-testid=chat-seats] [data-testid=chat-msg]")).to_have_count(3)
    # Too long is refused before sending, with the reason.
    say(bob, "x" * 201)
    expect(bob.page.get_by_test_id("chat-error")).to_contain_text("At most 200 characters")
    # A reload brings the history back (kept by the relay), the mute too (kept by the browser).
    bob.page.reload()
    bob.page.wait_for_selector("html.ready", state="attached", timeout=90_000)
    expect(bob.page.locator("[data-testid=chat-seats] [data-testid=chat-msg]")).to_have_count(3)
    alice.page.reload()
    alice.page.wait_for_selector("html.ready", state="attached", timeout=90_000)
    expect(alice.page.locator("[data-testid=chat-seats] [data-testid=chat-msg]")).to_have_count(1)
    carol.page.set_viewport_size({"width": 375, "height": 667})
    carol.page.locator("#t-chat").scroll_into_view_if_needed()
    carol.shot("141-chat-watcher-375")
