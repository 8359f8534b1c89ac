"""Issue 29, point 5, in real Chromium: a registered player who played a game exports it (one ZIP of GCG
records, downloaded), then deletes the account through its confirmation dialog (the focus kept inside, the
nickname typed, Escape cancels); the page is signed out and says so, the passkey signs in to nothing, and the
opponent's profile still has the game, with a deleted player in it. axe at 1280x800 and 375x667,
screenshots in e2e/artifacts/issue29-delete/."""

from __future__ import annotations

import io
import re
import zipfile
from typing import Any

from accountui import look, registered
from e2e_plan import Planner, features
from e2e_ui import ARTIFACTS, Relay, pick_table, place_and_submit, seat
from playwright.sync_api import expect

from engine.gcg import parse_gcg

SHOTS = ARTIFACTS / "issue29-delete"


def test_export_then_delete_through_the_dialog_and_the_opponent_keeps_the_game(
    players: Any, relay: Relay, planner: Planner
) -> None:
    alice, a_nick = registered(players, relay, "Del")
    bob, b_nick = registered(players, relay, "Kept")

    def first(st: Any) -> Any:
        moves = planner.moves(st)
        top = max(moves, key=lambda m: (features(st, m)["total"], -len(m.tiles))) if moves else None
        return top if top is not None and features(st, top)["total"] >= 25 else None

    table_id, move = pick_table(relay, planner, [a_nick, b_nick], first)
    seat([alice, bob], relay.url, table_id)
    place_and_submit(alice, move, [bob])
    for p in (bob, alice, bob, alice):
        p.wait_my_turn()
        p.pass_turn()
    for p in (alice, bob):
        expect(p.page.locator("#end-title")).to_be_visible()

    # My account: the export downloads one ZIP holding this game's GCG record.
    page = alice.page
    page.get_by_test_id("account-name").click()
    page.locator("#menu-account").click()
    expect(page.locator("#acct-title")).to_have_text("My account")
    expect(page.locator("#export-games")).to_have_text("Export my games (GCG archive)")
    with page.expect_download() as dl:
        page.locator("#export-games").click()
    assert dl.value.suggested_filename == f"lexio-{a_nick}-games.zip"
    with zipfile.ZipFile(io.BytesIO(dl.value.path().read_bytes())) as archive:
        [name] = archive.namelist()
        assert re.fullmatch(rf"\d{{4}}-\d\d-\d\d-{table_id}\.gcg", name), name
        record = parse_gcg(archive.read(name).decode())
    assert sorted(p.nick for p in record.players) == sorted([a_nick, b_nick]) and record.moves
    look(page, SHOTS, "20-my-data", french=True)

    # The dialog: the focus on its field and kept inside; a wrong nickname said there; Escape cancels.
    page.locator("#delete-account").click()
    dialog = page.locator("#delete-dialog")
    expect(dialog).to_be_visible()
    expect(page.locator("#delete-confirm")).to_be_focused()
    for _ in range(5):
        page.keyboard.press("Tab")
        assert page.evaluate("!!document.activeElement.closest('#delete-dialog')")
    page.locator("#delete-confirm").fill("someone")
    page.locator("#delete-go").click()
    expect(page.get_by_test_id("delete-error")).to_contain_text("That is not your nickname")
    expect(page.locator("#delete-confirm")).to_have_attribute("aria-invalid", "true")
    look(page, SHOTS, "21-delete-dialog", french=True)
    page.locator("#delete-confirm").press("Escape")
    expect(dialog).to_have_count(0)
    expect(page.locator("#delete-account")).to_be_focused()
    expect(page.locator("#acct-title")).to_have_text("My account")  # nothing deleted

    # Typed right (Enter in the field): deleted, signed out, told so.
    page.locator("#delete-account").click()
    page.locator("#delete-confirm").press_sequentially(a_nick.lower())
    page.locator("#delete-confirm").press("Enter")
    expect(page.get_by_test_id("notice")).to_contain_text(f"The account {a_nick} is deleted")
    expect(page.locator("#signin-link")).to_be_visible()
    look(page, SHOTS, "22-deleted")
    # Gone: the profile, and the passkey still in this browser's authenticator signs in to nothing.
    page.locator("#signin-link").click()
    page.locator("#signin-passkey").click()
    expect(page.get_by_test_id("account-error")).to_have_attribute("data-code", "bad_credential")
    alice.open(f"/u/{a_nick}")
    expect(page.get_by_test_id("profile-problem")).to_be_visible()

    # The opponent keeps the game, the other seat a deleted player with no link.
    bob.open(f"/u/{b_nick}")
    row = bob.page.get_by_test_id("game-row")
    expect(row).to_have_count(1)
    expect(row).to_have_attribute("data-table", table_id)
    expect(row.get_by_test_id("deleted-player")).to_have_text("deleted player")
    expect(row.get_by_role("link", name=a_nick)).to_have_count(0)
    look(bob.page, SHOTS, "23-opponent-profile")
    assert alice.errors == [] and bob.errors == []
