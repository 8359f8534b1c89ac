"""Issue 29, point 6, in real Chromium: two registered players (passkeys on Chromium's virtual authenticator)
sit at one table; one reports the other with the keyboard only (the focus put inside the dialog and kept
there, Escape closes it, "also block" ticked), the host's ``lexio admin reports`` has the report with the
table's chat, and the blocked player's next line never reaches the reporter; "My account" lists the block and
undoes it, and the profile offers "Block" again; the host bans an account (its chat line refused with the
reason, the ban said in words on home) and lifts it. axe at 1280x800 and 375x667 (the dialog in French too),
screenshots in e2e/artifacts/issue29-moderation/.

Pages are opened at http://localhost:PORT: browsers refuse WebAuthn on an IP address."""

from __future__ import annotations

import json
import re
import time
from typing import Any

import pytest
from accountui import look, registered
from e2e_ui import ARTIFACTS, Player, Relay, seat
from playwright.sync_api import Page, expect

from relay.accounts import admin

SHOTS = ARTIFACTS / "issue29-moderation"
SEATS_LOG = "[data-testid=chat-seats] [data-testid=chat-msg]"
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")  # fmt: skip


def say(p: Player, text: str) -> None:
    box = p.page.locator("#chat-input")
    box.fill(text)
    box.press("Enter")
    expect(box).to_have_value("")


def host(relay: Relay, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """``lexio admin --db JOURNAL ARGS`` as the host runs it beside the running relay: its standard output."""
    capsys.readouterr()
    code = admin.main(["--db", str(relay.db), *args])
    out, err = capsys.readouterr()
    assert code == 0, (args, out, err)
    return out


def focus_in_dialog(page: Page) -> bool:
    return bool(page.evaluate("!!document.activeElement.closest('#report-dialog')"))


def tab_to(page: Page, target: str, key: str) -> None:
    """Presses ``key`` until the control ``target`` has the focus, which never leaves the dialog meanwhile."""
    for _ in range(10):
        if page.evaluate("document.activeElement.id") == target:
            return
        page.keyboard.press(key)
        assert focus_in_dialog(page), (key, page.evaluate("document.activeElement.outerHTML"))
    raise AssertionError(f"{key} never reached #{target}")


def blocked_by(page: Page) -> list[str]:
    """The nicknames the page's account blocks, as the relay keeps them (the page's own session cookie)."""
    got = page.evaluate("fetch('/api/account/blocks').then(r => r.json())")
    return [b["nickname"] for b in got["blocked"]]


def in_words(ms: int) -> str:
    """A moment as the English page says it (app.i18n.Translator.moment): "10 December 2026, 15:51 UTC"."""
    t = time.gmtime(ms / 1000)
    return f"{t.tm_mday} {MONTHS[t.tm_mon - 1]} {t.tm_year}, {t.tm_hour:02d}:{t.tm_min:02d} UTC"


def test_a_keyboard_report_reaches_the_host_with_the_chat_blocks_the_player_and_my_account_unblocks(
    players: Any, relay: Relay, capsys: pytest.CaptureFixture[str]
) -> None:
    ann, a_nick = registered(players, relay, "Ann")
    ben, b_nick = registered(players, relay, "Ben")
    table_id = relay.create_table()
    seat([ann, ben], relay.url, table_id)
    say(ben, "you play like a potato")
    expect(ann.page.locator(SEATS_LOG)).to_contain_text(["you play like a potato"])

    # "Report a player…" by the keyboard: Enter on the button puts the focus inside the dialog, on the
    # reasons (Ben, the only other person here, is chosen already); Escape closes it, the focus back.
    page = ann.page
    opener = page.locator("#report-open")
    expect(opener).to_have_text("Report a player…")
    opener.focus()
    page.keyboard.press("Enter")
    dialog = page.locator("#report-dialog")
    expect(dialog).to_be_visible()
    expect(page.locator("#report-reason-insult")).to_be_focused()
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
    expect(opener).to_be_focused()
    page.keyboard.press("Enter")
    expect(dialog).to_be_visible()
    expect(page.locator("#report-seat-1")).to_be_checked()
    expect(page.locator("#report-reason-insult")).to_be_focused()
    # Tab and Shift+Tab keep the focus inside (the bootstrap's trap), round and round.
    for key in ["Tab"] * 6 + ["Shift+Tab"] * 6:
        page.keyboard.press(key)
        assert focus_in_dialog(page), (key, page.evaluate("document.activeElement.outerHTML"))
    # Why: Space on the first reason (arrows and typing: the test below).
    tab_to(page, "report-reason-insult", "Tab")
    page.keyboard.press("Space")
    expect(page.locator("#report-reason-insult")).to_be_checked()
    page.keyboard.press("Tab")
    expect(page.locator("#report-note")).to_be_focused()
    page.locator("#report-note").fill("  rude\nagain ")
    tab_to(page, "report-block", "Shift+Tab")  # "Also block this player"
    block = page.locator("#report-block")
    expect(block).to_be_focused()
    expect(block).not_to_be_checked()
    page.keyboard.press("Space")
    expect(block).to_be_checked()
    page.keyboard.press("Tab")
    send = page.locator("#report-send")
    expect(send).to_be_focused()
    look(page, SHOTS, "30-report-dialog", french=True)
    expect(block).to_be_checked()  # the language's switch drew the dialog anew: the choices stay
    expect(page.locator("#report-reason-insult")).to_be_checked()
    tab_to(page, "report-send", "Shift+Tab")  # (the new drawing took the focus away: the trap brings it back)
    page.keyboard.press("Enter")
    expect(dialog).to_have_count(0)
    expect(page.locator("#banner")).to_contain_text(f"Thank you: the host has your report on {b_nick}.")
    expect(opener).to_be_focused()

    # The host's list has it: who, why, the note tidied, and the table's chat as the relay kept it.
    lines = host(relay, capsys, "reports", "--json").splitlines()
    [report] = [r for r in map(json.loads, lines) if r["table_id"] == table_id]
    assert (report["reporter"], report["account"], report["name"]) == (a_nick, b_nick, b_nick)
    assert (report["reason"], report["note"], report["seat"]) == ("insult", "rude again", 1)
    assert [(x["name"], x["text"]) for x in report["excerpt"]] == [(b_nick, "you play like a potato")]

    # "Also block" is done after the relay's answer (the page asks the account API): then Ben's next line
    # goes to Ben's log, not Ann's, while Ann's own next line, said after it, reaches both.
    deadline = time.monotonic() + 10
    while blocked_by(page) != [b_nick]:
        assert time.monotonic() < deadline, blocked_by(page)
        page.wait_for_timeout(100)
    # (look() switched the language at 375 px: the table's drawers were drawn anew there, folded.)
    if not page.locator("#d-chat").evaluate("d => d.open"):
        page.locator("#d-chat > summary").click()
    say(ben, "still a potato")
    expect(ben.page.locator(SEATS_LOG).last).to_contain_text("still a potato")
    say(ann, "let us play")
    expect(ben.page.locator(SEATS_LOG).last).to_contain_text("let us play")
    expect(page.locator(SEATS_LOG).last).to_contain_text("let us play")
    page.wait_for_timeout(500)
    expect(page.locator("#t-chat")).not_to_contain_text("still a potato")
    expect(page.locator(SEATS_LOG)).to_have_count(2)

    # My account lists Ben, since when, with his profile's link; "Unblock" there empties the list.
    page.get_by_test_id("account-name").click()
    page.locator("#menu-account").click()
    expect(page.locator("#acct-title")).to_have_text("My account")
    row = page.get_by_test_id("blocked-player")
    expect(row).to_have_count(1)
    link = row.get_by_role("link", name=b_nick, exact=True)
    expect(link).to_have_attribute("href", re.compile(f"(^|/)u/{b_nick}$"))  # (relative to the base)
    expect(row).to_contain_text("since ")
    look(page, SHOTS, "31-my-account-blocked", full_page=True)
    row.get_by_role("button", name=f"Unblock {b_nick}").click()
    expect(page.get_by_test_id("blocked-player")).to_have_count(0)
    expect(page.get_by_test_id("blocked-none")).to_have_text("You have not blocked anyone.")
    assert blocked_by(page) == []

    # Ben's profile offers the block again, with what it does.
    ann.open(f"/u/{b_nick}")
    expect(page.locator("#prof-title")).to_contain_text(b_nick)
    toggle = page.locator("#block-toggle")
    expect(toggle).to_have_text(f"Block {b_nick}")
    expect(toggle).to_have_accessible_description(re.compile("^Their messages are hidden from you"))
    look(page, SHOTS, "32-profile-block", full_page=True)


def test_a_banned_accounts_chat_line_is_refused_with_the_reason_home_says_until_when_and_a_lift_frees_it(
    players: Any, relay: Relay, capsys: pytest.CaptureFixture[str]
) -> None:
    ben, b_nick = registered(players, relay, "Ben")
    table_id = relay.create_table()
    ben.open(f"/t/{table_id}")
    ben.page.locator("#join-table").click()  # alone in the waiting room: the seats' chat is open already
    expect(ben.page.locator("#seat-list li")).to_have_count(1)
    say(ben, "hello")
    expect(ben.page.locator(SEATS_LOG)).to_have_count(1)

    out = host(relay, capsys, "ban", "--account", b_nick, "--for", "2h", "--reason", "insults")
    assert out.startswith("ban "), out
    ban_id = out.split()[1].rstrip(":")
    bans = map(json.loads, host(relay, capsys, "bans", "--json").splitlines())
    [ban] = [b for b in bans if b["id"] == ban_id]
    assert ban["nickname"] == b_nick and ban["reason"] == "insults"
    until = in_words(ban["until_ms"])

    # His next line is refused, the reason and the end said under the chat; nothing reaches the log.
    page = ben.page
    say(ben, "still here")
    error = page.get_by_test_id("chat-error")
    said = f"Suspended by the host until {until}: insults. You can neither sit nor write."
    expect(error).to_have_text(said)
    expect(page.locator(SEATS_LOG)).to_have_count(1)

    # Home (a new tab, the table's stays) says the ban in words, with its reason and its end.
    home = ben.context.new_page()
    home.on("pageerror", lambda e: ben.errors.append(str(e)))
    home.goto(ben.base + "/")
    home.wait_for_selector("html.ready", state="attached")
    notice = home.get_by_test_id("ban-notice")
    expect(notice).to_contain_text("Account suspended")
    expect(notice).to_contain_text(f"until {until}: insults")
    look(home, SHOTS, "33-home-ban-notice", french=True, full_page=True)

    # Lifted: Ben writes again, and home no longer says it.
    assert host(relay, capsys, "lift", ban_id).strip() == f"ban {ban_id} lifted"
    say(ben, "sorry, everyone")
    expect(page.locator(SEATS_LOG)).to_have_count(2)
    expect(page.locator(SEATS_LOG).last).to_contain_text("sorry, everyone")
    expect(error).to_have_count(0)
    home.reload()
    home.wait_for_selector("html.ready", state="attached")
    expect(home.get_by_test_id("account-name")).to_have_text(re.compile(b_nick))
    expect(home.get_by_test_id("ban-notice")).to_have_count(0)


def test_the_report_dialog_takes_arrow_keys_on_the_reasons_typing_in_the_note_and_tab_onwards(
    players: Any, relay: Relay
) -> None:
    ann, _ = registered(players, relay, "Ann")
    table_id = relay.create_table()
    ann.open(f"/t/{table_id}")
    page = ann.page
    page.locator("#join-table").click()
    expect(page.locator("#seat-list li")).to_have_count(1)  # Ann first: hers is the start
    relay.sit(table_id, "Gus")  # a guest on a bare socket (no second browser): a guest may be reported too
    expect(page.locator("#seat-list li")).to_have_count(2)
    page.locator("#start-game").click()
    page.locator("#report-open").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#report-reason-insult")).to_be_focused()
    page.keyboard.press("Space")
    page.keyboard.press("ArrowDown")
    # (Short waits: the keys act at once or never.)
    expect(page.locator("#report-reason-cheating")).to_be_focused(timeout=2_000)
    expect(page.locator("#report-reason-cheating")).to_be_checked(timeout=2_000)
    page.keyboard.press("Tab")
    expect(page.locator("#report-note")).to_be_focused(timeout=2_000)
    page.keyboard.type("rude again")
    expect(page.locator("#report-note")).to_have_value("rude again", timeout=2_000)
    page.keyboard.press("Tab")
    expect(page.locator("#report-send")).to_be_focused(timeout=2_000)  # a guest: no "also block"
