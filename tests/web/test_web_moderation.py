"""Issue 29, point 6 on the page (CPython, fake doors): the report dialog at a table and its frame, block and
unblock from a profile and from "my account", a host's ban said in words, a deleted account's seat link."""

from __future__ import annotations

import json
from typing import Any

from app.glue.client import Client
from app.i18n import Translator
from fake_browser import FakeBrowser, client_at, text, ui
from web_helpers import run, snapshot

import engine as e

TOKEN = "tok-1"
ME = {
    "account": {"id": "a1", "nickname": "Alice", "created_ms": 0},
    "passkeys": [{"id": "k1", "name": "Passkey 1", "created_ms": 0, "used_ms": None}],
    "recovery_codes_left": 8,
    "ban": None,
    "blocked": [],
}
UNTIL = 1_765_381_860_000  # 10 December 2025, 15:51 UTC


def _game() -> e.GameState:
    """Alice (an account, seat 0), Bob (an account, seat 1), Carl (a guest), and a computer player."""
    state = e.new_state()
    for cmd in (
        e.CreateTable(),
        e.Join("Alice", account="a1"),
        e.Join("Bob", account="b2"),
        e.Join("Carl"),
        e.Join("Robot 1", bot="easy"),  # the fourth seat: the game starts
    ):
        state, _ = run(state, cmd)
    return state


def at_table(me: dict[str, Any] | None = ME) -> tuple[Client, FakeBrowser]:
    client, browser = client_at("/t/abc", {"lexio:abc": TOKEN, "lexio:name": "Alice"})
    if me is None:
        browser.answer("GET", "/api/account", 401, {"code": "not_signed_in", "message": "m"})
    else:
        browser.answer("GET", "/api/account", 200, me)
    client.begin()
    browser.settle()
    browser.socket.opened()
    browser.socket.receive({"type": "welcome", "id": "j0", "table": "abc", "seat": 0, "token": TOKEN})
    browser.socket.receive(snapshot(_game(), 0))
    return client, browser


def test_a_signed_in_player_reports_a_seat_with_a_reason_and_a_note_and_may_block_them_too() -> None:
    client, browser = at_table()
    assert 'id="report-open"' in browser.regions["t-players"]
    ui(client, t="click", act="report-open")
    dialog = browser.regions["dialog-root"]
    assert 'role="dialog"' in dialog and 'aria-modal="true"' in dialog
    assert "Bob" in dialog and "Carl" in dialog and "Robot" not in dialog and "Alice" not in dialog
    assert browser.last_patch.get("focus") == "report-seat-1"
    ui(client, t="click", act="report-send")  # nobody chosen: said, nothing sent
    assert "report-error" in browser.regions["dialog-root"]
    assert not any(f.get("type") == "report" for f in browser.socket.sent)
    ui(client, t="bind", bind="report-seat", value="1", type="change", checked=True)
    assert 'id="report-block"' in browser.regions["dialog-root"]  # Bob is an account: "also block"
    ui(client, t="bind", bind="report-reason", value="insult", type="change", checked=True)
    ui(client, t="bind", bind="report-note", value="  rude \n again ", type="input")
    ui(client, t="bind", bind="report-block", value="on", type="change", checked=True)
    ui(client, t="click", act="report-send")
    sent = browser.socket.sent[-1]
    assert sent == {"type": "report", "id": "rep1", "seat": 1, "reason": "insult", "note": "rude again"}
    assert 'aria-busy="true"' in browser.regions["dialog-root"]
    browser.answer("POST", "/api/account/blocks", 201, {"blocked": "Bob"})
    browser.answer("GET", "/api/account", 200, {**ME, "blocked": [{"nickname": "Bob", "since": 5}]})
    browser.socket.receive({"type": "ack", "id": "rep1", "seq": 9, "now": 0})
    browser.settle()
    assert browser.regions["dialog-root"] == ""
    assert json.loads(browser.requests[-2][2] or "{}") == {"nickname": "Bob"}
    assert client.session.account.blocked == {"Bob": 5}


def test_a_refused_report_is_said_in_the_dialog_which_stays_open_and_escape_closes_it() -> None:
    client, browser = at_table()
    ui(client, t="click", act="report-open")
    ui(client, t="bind", bind="report-seat", value="2", type="change", checked=True)
    assert 'id="report-block"' not in browser.regions["dialog-root"]  # Carl is a guest
    ui(client, t="bind", bind="report-reason", value="spam", type="change", checked=True)
    ui(client, t="click", act="report-send")
    browser.socket.receive({"type": "error", "id": "rep1", "code": "too_many_reports", "message": "m"})
    assert "many reports today" in text(browser, "dialog-root") or "signalements" in text(
        browser, "dialog-root"
    )
    ui(client, t="key", key="Escape")
    assert browser.regions["dialog-root"] == ""
    assert browser.last_patch.get("focus") == "report-open"


def test_a_guest_is_offered_no_report() -> None:
    _, browser = at_table(None)
    assert 'id="report-open"' not in browser.regions["t-players"]


def test_a_profile_offers_block_and_unblock_to_a_signed_in_viewer_but_not_on_their_own() -> None:
    client, browser = client_at("/u/Bob")
    browser.answer("GET", "/api/account", 200, ME)
    browser.answer("GET", "/api/users/Bob", 200, {"nickname": "Bob", "created_ms": 0, "stats": {}})
    browser.answer("GET", "/api/users/Bob/games?page=0", 200, {"games": [], "more": False})
    client.begin()
    browser.settle()
    main = text(browser, "main")
    assert 'data-act="block" data-arg="Bob"' in main and "Bloquer Bob" in main
    browser.answer("POST", "/api/account/blocks", 201, {"blocked": "Bob"})
    browser.answer("GET", "/api/account", 200, {**ME, "blocked": [{"nickname": "Bob", "since": 0}]})
    ui(client, t="click", act="block", arg="Bob")
    browser.settle()
    assert "Débloquer Bob" in text(browser, "main")
    assert "Bob est bloqué." in text(browser, "banner")


def test_my_account_lists_the_blocked_players_and_a_hosts_ban_in_words() -> None:
    me = {**ME, "blocked": [{"nickname": "Bob", "since": 0}], "ban": {"reason": "insultes", "until": UNTIL}}
    client, browser = client_at("/account")
    browser.answer("GET", "/api/account", 200, me)
    client.begin()
    browser.settle()
    body = text(browser, "acct-body")
    assert "Joueurs bloqués" in body and 'data-testid="blocked-player"' in body
    assert "jusqu'au 10 décembre 2025, 15:51 UTC : insultes" in body
    client.nav.go_home()
    assert 'data-testid="ban-notice"' in browser.regions["main"]


def test_a_banned_join_is_told_the_reason_and_the_end_in_words() -> None:
    tr = Translator("en")
    said = tr.error("banned", {"reason": "spam", "until": UNTIL})
    assert (
        said
        == "Suspended by the host until 10 December 2025, 15:51 UTC: spam. You can neither sit nor write."
    )


def test_a_seat_whose_account_was_deleted_is_forgotten_and_said() -> None:
    client, browser = client_at("/t/abc", {"lexio:abc": TOKEN})
    browser.answer("GET", "/api/account", 401, {"code": "not_signed_in", "message": "m"})
    browser.answer("GET", "/api/tables/abc", 200, {"id": "abc", "status": "playing", "seats": []})
    client.begin()
    browser.socket.opened()
    browser.socket.receive({"type": "error", "id": "j0", "code": "seat_deleted", "message": "m"})
    browser.settle()
    assert "lexio:abc" not in client.page.storage
    assert "supprimé" in text(browser, "banner")
