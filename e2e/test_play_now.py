"""Issue 30, "Play now", in real Chromium: two registered players (passkeys on Chromium's virtual
authenticator), each in a browser context of their own, pick a class and a table size on home (one with the
keyboard alone), seek, see how many are looking, are offered the same table with each other's ratings,
confirm, and land at the same rated table, both seated and the game started by itself; they play it to the
end and both end screens give each player's rating change. axe at 1280x800 and
375x667 on the card (idle and seeking, French too) and on the offer's dialog; screenshots in
e2e/artifacts/issue30-play-now/.

Pages are opened at http://localhost:PORT: browsers refuse WebAuthn on an IP address."""

from __future__ import annotations

import json
import re
import sqlite3
from typing import Any

from accountui import look, registered
from e2e_ui import ARTIFACTS, Relay, pass_to_end
from playwright.sync_api import Page, expect

SHOTS = ARTIFACTS / "issue30-play-now"


def keyboard_to(page: Page, target: str, limit: int = 40) -> None:
    """Tab until ``#target`` has the focus (the page's order: no mouse)."""
    for _ in range(limit):
        if page.evaluate("document.activeElement && document.activeElement.id") == target:
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached #{target}")


def first_event(relay: Relay, table_id: str) -> dict[str, Any]:
    with sqlite3.connect(relay.db) as db:
        row = db.execute(
            "SELECT body FROM events WHERE table_id = ? ORDER BY seq LIMIT 1", (table_id,)
        ).fetchone()
    assert row is not None
    return dict(json.loads(row[0]))


def test_two_registered_players_seek_confirm_and_sit_at_the_same_rated_table(
    players: Any, relay: Relay
) -> None:
    ann, a_nick = registered(players, relay, "Ann")
    ben, b_nick = registered(players, relay, "Ben")
    pa, pb = ann.page, ben.page
    expect(pa.locator("#playnow-title")).to_have_text("Play now")
    look(pa, SHOTS, "card", french=True)

    # Ann with the keyboard alone: the class (arrow keys in the list), the size (a radio group), Seek.
    keyboard_to(pa, "playnow-speed")
    pa.keyboard.press("ArrowDown")  # normal -> lent
    pa.keyboard.press("ArrowUp")  # back to normal
    expect(pa.locator("#playnow-speed")).to_have_value("normal")
    keyboard_to(pa, "playnow-size-2")
    expect(pa.locator("#playnow-size-2")).to_be_checked()
    keyboard_to(pa, "playnow-seek")
    pa.keyboard.press("Enter")
    expect(pa.get_by_test_id("playnow-state")).to_have_attribute("data-status", "seeking")
    expect(pa.get_by_test_id("playnow-count")).to_have_text("1 player looking")
    expect(pa.locator("#playnow-cancel")).to_be_focused()
    look(pa, SHOTS, "seeking", french=True)

    # Ben with the mouse.
    pb.locator("#playnow-speed").select_option("normal")
    pb.locator("#playnow-size-2").check()
    pb.locator("#playnow-seek").click()
    for page in (pa, pb):
        dialog = page.locator("#playnow-dialog")
        expect(dialog).to_be_visible()
        expect(dialog.get_by_test_id("playnow-player")).to_have_count(2)
        expect(dialog).to_contain_text(a_nick)
        expect(dialog).to_contain_text(b_nick)
        expect(dialog).to_contain_text("1346?")  # newcomers' ratings, provisional
        expect(page.locator("#playnow-confirm")).to_be_focused()
        expect(page.locator("#playnow-secs")).to_have_text(re.compile(r"\(1?\d s\)"))
    look(pb, SHOTS, "offer")

    pa.keyboard.press("Enter")  # Confirm has the focus
    expect(pa.locator("#playnow-confirm")).to_be_disabled()
    pb.locator("#playnow-confirm").click()

    # Both at the same table, seated under their nicknames, and the game started by itself.
    for page in (pa, pb):
        expect(page).to_have_url(re.compile(r"/t/[^/?#]+$"), timeout=10_000)
        expect(page.get_by_test_id("turn")).to_be_visible(timeout=10_000)
    assert ann.table_id() == ben.table_id()
    names = pa.locator("#t-players").inner_text()
    assert a_nick in names and b_nick in names
    created = first_event(relay, ann.table_id())
    assert created["type"] == "table_created" and created.get("rated") is True
    assert created.get("turn_seconds") == 120
    pa.screenshot(path=str(SHOTS / "table-1280.png"))

    # They play it to the end (everyone passes: scoreless turns end it) and both see each rating's change.
    pass_to_end([pa, pb])
    for page in (pa, pb):
        expect(page.locator("#end-title")).to_be_visible()
        changes = page.get_by_test_id("final-row").get_by_test_id("rating-change")
        expect(changes).to_have_count(2)
    look(pb, SHOTS, "end-changes")
    assert not ann.errors and not ben.errors
