"""Issue 29, the account screens in real Chromium with its virtual authenticator (the DevTools WebAuthn
domain): sign up and the recovery codes shown once, sign out, sign in from a second browser context holding
the same credential, passkeys added, renamed and removed (never the last), recovery with a code, sign out
everywhere; a guest's seat claimed at sign-up; registered players marked at a table; a guest told in words
that a name is registered. axe on every new screen at 1280x800 and 375x667, screenshots in
e2e/artifacts/issue29/.

Pages are opened at http://localhost:PORT: browsers refuse WebAuthn on an IP address."""

from __future__ import annotations

import re
from typing import Any

from accountui import authenticator, look, nickname, save_codes, sign_up
from e2e_ui import ARTIFACTS, Player, Relay
from playwright.sync_api import expect

SHOTS = ARTIFACTS / "issue29"


def test_sign_up_codes_once_sign_in_elsewhere_passkeys_recovery_and_sign_out_everywhere(
    players: Any, relay: Relay
) -> None:
    nick = nickname("Alice")
    alice: Player = players("Alice", base=relay.local_url)
    cdp, auth = authenticator(alice)
    alice.open("/")
    page = alice.page
    expect(page.locator("#signin-link")).to_have_text("Sign in")
    # A nickname the relay's rule refuses is said next to the field, before any passkey is asked for.
    page.locator("#signin-link").click()
    look(alice.page, SHOTS, "10-signin", french=True)
    page.locator("#to-signup").click()
    page.locator("#nick-input").fill("a b")
    expect(page.get_by_test_id("nick-error")).to_have_text(re.compile("Only letters, digits"))
    page.locator("#nick-input").fill("ab")
    page.locator("#signup-go").click()
    expect(page.get_by_test_id("nick-error")).to_have_text(re.compile("too short"))
    expect(page.locator("#nick-input")).to_have_attribute("aria-invalid", "true")
    look(alice.page, SHOTS, "11-signup-error", french=True)
    page.locator("#nick-input").fill(nick)
    page.locator("#signup-go").click()
    expect(page.locator("#codes-dialog")).to_be_visible()
    codes = page.locator("[data-testid=recovery-codes] li").all_inner_texts()
    assert len(codes) == 8, codes
    # The dialog keeps the focus: Tab cycles inside it; Escape does not close it; Continue waits for the tick.
    expect(page.locator("#codes-copy")).to_be_focused()
    for _ in range(6):
        page.keyboard.press("Tab")
        assert page.evaluate("!!document.activeElement.closest('#codes-dialog')")
    page.keyboard.press("Escape")
    expect(page.locator("#codes-dialog")).to_be_visible()
    expect(page.locator("#codes-done")).to_be_disabled()
    look(alice.page, SHOTS, "12-recovery-codes", french=True)
    with page.expect_download() as dl:
        page.locator("#codes-download").click()
    saved = dl.value.path().read_text()
    assert all(c in saved for c in codes) and nick in saved
    page.locator("#codes-saved").focus()
    page.keyboard.press("Space")  # the keyboard ticks it (the dialog's key handling leaves it alone)
    expect(page.locator("#codes-saved")).to_be_checked()
    page.locator("#codes-done").click()
    expect(page.locator("#codes-dialog")).to_have_count(0)
    expect(page.get_by_test_id("notice")).to_contain_text(f"Welcome, {nick}")
    expect(page.get_by_test_id("account-name")).to_have_text(re.compile(nick))
    # Home: the name field is the nickname now (the relay seats a signed-in player under it).
    expect(page.get_by_test_id("playing-as")).to_contain_text(f"You play as {nick}")
    # The header's menu: a disclosure, closed by Escape.
    page.get_by_test_id("account-name").click()
    expect(page.locator("#account-menu-btn")).to_have_attribute("aria-expanded", "true")
    look(alice.page, SHOTS, "13-account-menu")
    page.keyboard.press("Escape")
    expect(page.locator("#account-menu")).to_have_count(0)
    expect(page.locator("#account-menu-btn")).to_be_focused()
    page.get_by_test_id("account-name").click()
    page.locator("#menu-account").click()
    expect(page.locator("#acct-title")).to_have_text("My account")
    expect(page.get_by_test_id("passkey")).to_have_count(1)
    expect(page.get_by_test_id("codes-left")).to_have_text("Recovery codes left: 8 of 8.")
    # Never the last passkey: the relay's refusal, in words.
    page.get_by_test_id("passkey").first.locator("[data-act=passkey-remove]").click()
    expect(page.get_by_test_id("account-error")).to_have_attribute("data-code", "last_passkey")
    expect(page.get_by_test_id("account-error")).to_contain_text("You cannot remove your last passkey")
    look(alice.page, SHOTS, "14-my-account", french=True)

    # A second passkey, on another authenticator of this browser (the first one's is kept for later).
    held = cdp.send("WebAuthn.getCredentials", {"authenticatorId": auth})["credentials"]
    assert len(held) == 1
    cdp.send("WebAuthn.removeVirtualAuthenticator", {"authenticatorId": auth})
    authenticator(alice)
    page.locator("#passkey-add").click()
    expect(page.get_by_test_id("passkey")).to_have_count(2)
    expect(page.get_by_test_id("account-done")).to_have_text("✔ Passkey added.")
    second = page.get_by_test_id("passkey").nth(1)
    second.locator("[data-act=passkey-rename]").click()
    expect(page.locator("#pk-name")).to_be_focused()
    page.locator("#pk-name").fill("Phone")
    page.locator("#pk-name").press("Enter")
    expect(page.get_by_test_id("passkey").nth(1)).to_contain_text("Phone")
    look(alice.page, SHOTS, "15-two-passkeys")
    page.get_by_role("button", name="Remove the passkey Phone").click()
    expect(page.get_by_test_id("passkey")).to_have_count(1)
    expect(page.get_by_test_id("account-done")).to_have_text("✔ Passkey removed.")
    page.locator("#sign-out").click()
    expect(page.locator("#signin-link")).to_be_visible()
    expect(page.get_by_test_id("notice")).to_have_text("You are signed out.")

    # A second browser holding the same credential signs in (discoverable: no nickname asked).
    bob: Player = players("Bob", base=relay.local_url)
    cdp_b, auth_b = authenticator(bob)
    cdp_b.send("WebAuthn.addCredential", {"authenticatorId": auth_b, "credential": held[0]})
    bob.open("/signin")
    expect(bob.page.locator("#acct-title")).to_have_text("Sign in")
    bob.page.locator("#signin-passkey").click()
    expect(bob.page.get_by_test_id("account-name")).to_have_text(re.compile(nick))
    expect(bob.page.get_by_test_id("notice")).to_contain_text(f"Welcome, {nick}")

    # Every device lost: a third browser recovers with a code (a new passkey), then signs out everywhere.
    carol: Player = players("Carol", base=relay.local_url)
    authenticator(carol)
    carol.open("/")
    carol.page.locator("#signin-link").click()
    carol.page.locator("#to-recover").click()
    expect(carol.page.locator("#acct-title")).to_have_text("Recover my account")
    carol.page.locator("#rec-nick").fill(nick)
    carol.page.locator("#rec-code").fill("zzzz-zzzz-zzzz")
    carol.page.locator("#recover-go").click()
    expect(carol.page.get_by_test_id("account-error")).to_have_attribute("data-code", "bad_recovery")
    look(carol.page, SHOTS, "16-recover-error", french=True)
    carol.page.locator("#rec-code").fill(codes[0])
    carol.page.locator("#recover-go").click()
    expect(carol.page.get_by_test_id("account-name")).to_have_text(re.compile(nick))
    carol.open("/account")
    expect(carol.page.get_by_test_id("codes-left")).to_have_text("Recovery codes left: 7 of 8.")
    expect(carol.page.get_by_test_id("passkey")).to_have_count(2)
    carol.page.locator("#sign-out-all").click()
    expect(carol.page.get_by_test_id("notice")).to_contain_text("Signed out of")
    bob.page.reload()
    bob.page.wait_for_selector("html.ready", state="attached")
    expect(bob.page.locator("#signin-link")).to_be_visible()  # the other device's session ended too


def test_a_guest_plays_signs_up_and_the_seat_is_claimed_then_sits_as_a_marked_registered_player(
    players: Any, relay: Relay
) -> None:
    nick = nickname("Zoe")
    zoe: Player = players("Zoé", base=relay.local_url)
    authenticator(zoe)
    zoe.open("/")
    page = zoe.page
    page.locator("#play-computer").click()
    zoe.wait_my_turn()
    zoe.pass_turn()  # a move as a guest
    expect(page.get_by_test_id("turn")).not_to_contain_text("Your turn")
    table = zoe.table_id()
    with page.expect_response(re.compile(r"/api/account/signup$")) as answer:
        sign_up(zoe, nick)
    claimed = answer.value.json()["claimed"]
    assert [c["table"] for c in claimed] == [table], claimed
    expect(page.locator("#codes-dialog [data-testid=claimed]")).to_have_text(
        "1 game from this browser attached to your account."
    )
    save_codes(zoe)
    # Back at the table the player came from.
    expect(page).to_have_url(re.compile(f"/t/{table}$"))
    expect(page.get_by_test_id("notice")).to_contain_text("1 game from this browser attached")

    # A new table: the signed-in player sits under the nickname, marked and linked to the profile.
    page.locator("#home-link").click()
    expect(page.get_by_test_id("playing-as")).to_contain_text(nick)
    page.locator("#create-table").click()
    expect(page.locator("#seat-list li")).to_have_count(1)
    link = page.locator("#seat-list [data-testid=member-link]")
    expect(link).to_have_text(nick)
    expect(link).to_have_attribute("href", f"u/{nick}")
    expect(page.locator("#seat-list li").first).to_contain_text("(registered player)")
    look(zoe.page, SHOTS, "20-waiting-room-member")
    invite = page.locator("#share-link").input_value()

    # A guest typing that nickname is told in words to sign in or pick another name.
    guest: Player = players("Guest")
    guest.open("/t/" + invite.rsplit("/t/", 1)[1])
    guest.page.locator("#name-input").fill(nick)
    guest.page.locator("#join-table").click()
    err = guest.page.get_by_test_id("name-error")
    expect(err).to_have_attribute("data-code", "name_registered")
    expect(err).to_contain_text("sign in if it is you, or pick another name")
    expect(guest.page.locator("#name-signin")).to_have_text("Sign in")
    look(guest.page, SHOTS, "21-name-registered")
    guest.page.locator("#name-input").fill("Guest")
    guest.page.locator("#join-table").click()
    expect(page.locator("#seat-list li")).to_have_count(2)
    page.locator("#start-game").click()
    player_row = guest.page.locator("[data-testid=player][data-seat='0']")
    expect(player_row.get_by_test_id("member-link")).to_have_text(nick)
    guest_row = guest.page.locator("[data-testid=player][data-seat='1']")
    expect(guest_row.get_by_test_id("member-link")).to_have_count(0)  # a guest's name is plain text
    look(guest.page, SHOTS, "22-table-member-marked")
