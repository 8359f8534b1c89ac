"""The account steps the e2e tests share (issue 29): Chromium's virtual authenticator, signing up through the
screens, a registered player ready at home, and the accessibility look (axe and screenshots at both sizes).

Pages are opened at http://localhost:PORT: browsers refuse WebAuthn on an IP address."""

from __future__ import annotations

import re
import secrets
from pathlib import Path
from typing import Any

from a11y import assert_no_violations
from e2e_ui import Player, Relay
from playwright.sync_api import Page, expect


def authenticator(p: Player) -> tuple[Any, str]:
    """A platform authenticator with user verification for the player's browser (CDP WebAuthn)."""
    cdp = p.context.new_cdp_session(p.page)
    cdp.send("WebAuthn.enable")
    made = cdp.send(
        "WebAuthn.addVirtualAuthenticator",
        {
            "options": {
                "protocol": "ctap2",
                "transport": "internal",
                "hasResidentKey": True,
                "hasUserVerification": True,
                "isUserVerified": True,
            }
        },
    )
    return cdp, str(made["authenticatorId"])


def look(page: Page, shots: Path, name: str, *, french: bool = False, full_page: bool = False) -> None:
    """axe at 1280x800 and 375x667 (in French too when ``french``: the header's switch, no reload) and a
    screenshot of each into ``shots``; the page is left in English at 1280x800."""
    shots.mkdir(parents=True, exist_ok=True)
    for lang in ("en", "fr") if french else ("en",):
        if page.evaluate("document.documentElement.lang") != lang:
            page.locator("#lang-switch").dispatch_event("click")  # also behind an open dialog
            expect(page.locator("html")).to_have_attribute("lang", lang)
        for w, h in ((1280, 800), (375, 667)):
            page.set_viewport_size({"width": w, "height": h})
            page.wait_for_timeout(150)
            assert_no_violations(page, f"{name} {w}x{h} {lang}")
            shot = shots / f"{name}-{w}{'-fr' if lang == 'fr' else ''}.png"
            page.screenshot(path=str(shot), full_page=full_page)
    if page.evaluate("document.documentElement.lang") != "en":
        page.locator("#lang-switch").dispatch_event("click")
        expect(page.locator("html")).to_have_attribute("lang", "en")
    page.set_viewport_size({"width": 1280, "height": 800})


def nickname(stem: str) -> str:
    return f"{stem}_{secrets.token_hex(3)}"  # the session's relay is shared: a fresh nickname per test


def sign_up(p: Player, nick: str) -> list[str]:
    """From the header's "Sign in" to the recovery codes' dialog (left open); returns the codes."""
    page = p.page
    page.locator("#signin-link").click()
    expect(page.locator("#acct-title")).to_have_text("Sign in")
    page.locator("#to-signup").click()
    expect(page.locator("#acct-title")).to_have_text("Create an account")
    expect(page.locator("#acct-title")).to_be_focused()
    page.locator("#nick-input").fill(nick)
    page.locator("#signup-go").click()
    dialog = page.locator("#codes-dialog")
    expect(dialog).to_be_visible()
    codes = page.locator("[data-testid=recovery-codes] li").all_inner_texts()
    assert len(codes) == 8 and all(re.fullmatch(r"\w{4}-\w{4}-\w{4}", c) for c in codes), codes
    return codes


def save_codes(p: Player) -> None:
    page = p.page
    page.locator("#codes-saved").check()
    expect(page.locator("#codes-done")).to_be_enabled()
    page.locator("#codes-done").click()
    expect(page.locator("#codes-dialog")).to_have_count(0)


def registered(players: Any, relay: Relay, stem: str) -> tuple[Player, str]:
    """A new player with a passkey, signed up and back at home; their nickname."""
    nick = nickname(stem)
    p: Player = players(stem, base=relay.local_url)
    authenticator(p)
    p.open("/")
    sign_up(p, nick)
    save_codes(p)
    expect(p.page.get_by_test_id("account-name")).to_have_text(re.compile(nick))
    return p, nick
