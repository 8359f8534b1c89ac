"""Issue 29, the account screens' logic on CPython: a Client on fake doors (tests/web/fake_browser.py) whose
relay answers the account API (docs/protocol.md, "Accounts") and whose page answers the passkey ceremonies
as the page's bootstrap would (a ``webauthn`` event)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from app.account import nickname_problem, seat_tokens
from app.glue.client import Client
from app.i18n import Translator
from app.members import seat_name_html
from fake_browser import FakeBrowser, client_at, text, ui

ME = {
    "account": {"id": "a1", "nickname": "Alice", "created_ms": 0},
    "passkeys": [{"id": "k1", "name": "Passkey 1", "created_ms": 0, "used_ms": None}],
    "recovery_codes_left": 8,
}
OPTIONS = {"ceremony": "c1", "publicKey": {"challenge": "abc"}}
CREDENTIAL = {"id": "cred", "type": "public-key", "response": {}}


def guest_at(path: str, storage: dict[str, str] | None = None) -> tuple[Client, FakeBrowser]:
    client, browser = client_at(path, storage)
    browser.answer("GET", "/api/account", 401, {"code": "not_signed_in", "message": "sign in first"})
    browser.answer("GET", "/api/tables", 200, {"tables": [], "live": []})
    client.begin()
    browser.settle()
    return client, browser


def posted(browser: FakeBrowser, path: str) -> dict[str, Any]:
    bodies = [b for m, u, b in browser.requests if m == "POST" and u.endswith(path)]
    assert bodies, f"nothing posted to {path}"
    return dict(json.loads(bodies[-1] or "{}"))


def test_a_guest_sees_sign_in_in_the_header_and_it_opens_the_sign_in_screen() -> None:
    client, browser = guest_at("/")
    assert 'id="signin-link"' in browser.regions["hdr"]
    ui(client, t="click", act="account-page", arg="signin")
    assert browser.last_patch.get("push") == "/signin"
    assert 'data-page="signin"' in browser.regions["main"]
    assert browser.last_patch.get("focus") == "title"


def test_the_lobby_the_static_shell_showed_keeps_the_focus_and_a_return_to_it_takes_its_title() -> None:
    # Opened at "/", the shell's pre-rendered lobby is on screen before Python: its first render must not
    # pull the focus out of the field a player is already typing in.
    client, browser = guest_at("/")
    assert "data-screen-title" in browser.regions["main"]
    assert not any("focus" in p for p in browser.patches)
    ui(client, t="click", act="account-page", arg="signin")
    assert browser.last_patch.get("focus") == "title"
    client.nav.go_home()
    browser.settle()
    assert any(p.get("focus") == "title" and "main" in p.get("r", {}) for p in browser.patches[-3:])


def test_sign_in_hands_the_options_to_the_page_then_the_credential_and_the_seats_to_the_relay() -> None:
    storage = {"lexio:t1": "tok1", "lexio:name": "Al", "lexio:games:played": "[]", "lexio:sound": "off"}
    client, browser = guest_at("/t/t1/replay", storage)  # (any page: the way back is remembered)
    client.nav.go_home()
    ui(client, t="click", act="account-page", arg="signin")
    browser.answer("POST", "/api/account/signin/options", 200, OPTIONS)
    ui(client, t="click", act="account-signin")
    assert 'aria-busy="true"' in browser.regions["acct-body"]
    browser.settle()
    ask = browser.last_patch["webauthn"]
    assert ask["op"] == "get" and ask["publicKey"] == OPTIONS["publicKey"]
    browser.answer(
        "POST",
        "/api/account/signin",
        200,
        {"account": ME["account"], "claimed": [{"table": "t1", "seat": 0}]},
    )
    ui(client, t="webauthn", id=ask["id"], ok=True, credential=CREDENTIAL)
    browser.settle()
    body = posted(browser, "/api/account/signin")
    assert body == {"ceremony": "c1", "credential": CREDENTIAL, "seats": [{"table": "t1", "token": "tok1"}]}
    assert client.state.member == "Alice"
    assert 'data-testid="account-name"' in browser.regions["hdr"]
    assert "1 partie de ce navigateur rattachée" in text(browser, "banner")
    assert client.session.addr.path == "/"  # back where the player was


def test_a_cancelled_passkey_is_said_in_words_and_nothing_is_posted() -> None:
    client, browser = guest_at("/signin")
    browser.answer("POST", "/api/account/signin/options", 200, OPTIONS)
    ui(client, t="click", act="account-signin")
    browser.settle()
    ask = browser.last_patch["webauthn"]
    ui(client, t="webauthn", id=ask["id"], ok=False, error="NotAllowedError")
    browser.settle()
    assert "n'a pas été utilisée" in text(browser, "acct-msg")
    assert not [u for m, u, _ in browser.requests if u.endswith("/api/account/signin")]
    assert 'aria-busy="true"' not in browser.regions["acct-body"]


def test_sign_up_checks_the_nickname_first_then_says_the_relays_refusal_in_words() -> None:
    client, browser = guest_at("/signup")
    ui(client, t="bind", bind="acct-nick", value="a b", type="input")
    assert "Seuls les lettres" in text(browser, "nick-error")
    ui(client, t="bind", bind="acct-nick", value="ab", type="input")
    assert text(browser, "nick-error") == ""  # typing more can fix it: not said yet
    ui(client, t="click", act="account-signup")
    assert "trop court" in text(browser, "acct-body")
    assert not [u for m, u, _ in browser.requests if m == "POST"]
    ui(client, t="bind", bind="acct-nick", value="Alice", type="input")
    browser.answer("POST", "/api/account/signup/options", 409, {"code": "nickname_taken", "message": "taken"})
    ui(client, t="click", act="account-signup")
    browser.settle()
    assert posted(browser, "/api/account/signup/options") == {"nickname": "Alice"}
    assert "déjà pris" in text(browser, "acct-msg")
    browser.answer("POST", "/api/account/signup/options", 429, {"code": "rate_limited", "message": "slow"})
    ui(client, t="click", act="account-signup")
    browser.settle()
    assert "Trop d'essais" in text(browser, "acct-msg")


def test_sign_up_shows_the_codes_once_in_a_dialog_that_closes_only_once_saved() -> None:
    client, browser = guest_at("/signup", {"lexio:t9": "tok9"})
    ui(client, t="bind", bind="acct-nick", value="Alice", type="input")
    browser.answer("POST", "/api/account/signup/options", 200, OPTIONS)
    ui(client, t="click", act="account-signup")
    browser.settle()
    codes = [f"aaaa-bbbb-000{i}" for i in range(8)]
    browser.answer(
        "POST",
        "/api/account/signup",
        201,
        {"account": ME["account"], "recovery_codes": codes, "claimed": [{"table": "t9", "seat": 1}]},
    )
    ui(client, t="webauthn", id=browser.last_patch["webauthn"]["id"], ok=True, credential=CREDENTIAL)
    browser.settle()
    assert posted(browser, "/api/account/signup")["seats"] == [{"table": "t9", "token": "tok9"}]
    dialog = text(browser, "dialog-root")
    assert all(c in dialog for c in codes) and 'aria-modal="true"' in dialog
    assert "1 partie de ce navigateur rattachée" in dialog
    assert browser.last_patch.get("focus") == "modal"
    ui(client, t="key", key="Escape")
    ui(client, t="click", act="codes-done")  # not ticked: stays
    assert 'id="codes-dialog"' in browser.regions["dialog-root"]
    ui(client, t="click", act="codes-download")
    name, saved = browser.last_patch["download"]
    assert name.endswith(".txt") and all(c in saved for c in codes)
    ui(client, t="bind", bind="codes-saved", value="on", checked=True, type="change")
    ui(client, t="click", act="codes-done")
    assert browser.regions["dialog-root"] == ""
    assert client.session.account.codes == []  # never shown again


def test_removing_the_last_passkey_says_the_relays_last_passkey_in_words() -> None:
    client, browser = client_at("/account")
    browser.answer("GET", "/api/account", 200, ME)
    client.begin()
    browser.settle()
    assert 'data-testid="passkey"' in browser.regions["acct-body"]
    assert "Codes de secours restants : 8 sur 8." in text(browser, "acct-body")
    browser.answer("POST", "/api/account/passkeys/remove", 409, {"code": "last_passkey", "message": "no"})
    ui(client, t="click", act="passkey-remove", arg="k1")
    browser.settle()
    assert posted(browser, "/api/account/passkeys/remove") == {"id": "k1"}
    assert "dernière clé d'accès" in text(browser, "acct-msg")


def test_sign_out_everywhere_signs_the_page_out_and_goes_home() -> None:
    client, browser = client_at("/account")
    browser.answer("GET", "/api/account", 200, ME)
    browser.answer("GET", "/api/tables", 200, {"tables": [], "live": []})
    client.begin()
    browser.settle()
    browser.answer("POST", "/api/account/signout-all", 200, {"signed_out": 3})
    ui(client, t="click", act="account-signout-all")
    browser.settle()
    assert client.state.member is None
    assert client.session.addr.path == "/"
    assert 'id="signin-link"' in browser.regions["hdr"]
    assert "3 sessions" in text(browser, "banner")


def test_a_signed_in_player_joins_under_the_nickname_and_the_home_shows_it_instead_of_a_field() -> None:
    client, browser = client_at("/", {"lexio:name": "Bob"})
    browser.answer("GET", "/api/account", 200, ME)
    browser.answer("GET", "/api/tables", 200, {"tables": [], "live": []})
    client.begin()
    browser.settle()
    main = text(browser, "main")
    assert "Vous jouez en tant que Alice" in main and 'id="name-input"' not in main
    assert client.state.join_frame() == {"type": "join", "id": "j0", "name": "Alice"}


def test_a_guest_told_name_registered_gets_words_and_a_sign_in_link() -> None:
    client, browser = guest_at("/t/abc", {"lexio:name": "Alice"})
    browser.answer("GET", "/api/tables/abc", 200, {"id": "abc", "status": "waiting", "seats": []})
    browser.settle()
    ui(client, t="click", act="invite-join", name="Alice")
    browser.socket.opened()
    browser.socket.receive({"type": "error", "id": "j0", "code": "name_registered", "message": "m"})
    err = text(browser, "name-error")
    assert "joueur inscrit" in err and "connectez-vous si c'est vous" in err
    assert 'data-act="account-page" data-arg="signin"' in err


def test_a_registered_players_seat_links_to_the_profile_and_says_so_in_words() -> None:
    tr = Translator("en")
    marked = seat_name_html(tr, {"seat": 0, "name": "Éloïse", "account": True})
    assert 'href="u/%C3%89lo%C3%AFse"' in marked and "(registered player)" in marked
    assert seat_name_html(tr, {"seat": 1, "name": "Bob"}) == "Bob"


def test_the_seats_handed_over_are_the_seat_tokens_only() -> None:
    storage = {
        "lexio:abc": "t1",
        "lexio:def": "t2",
        "lexio:name": "Al",
        "lexio:lang": "fr",
        "lexio:sound": "off",
        "lexio:chat-mute": "[]",
        "lexio:games:played": "[]",
        "lexio:analysis:abc": "{}",
        "other": "x",
    }
    assert seat_tokens(storage) == [{"table": "abc", "token": "t1"}, {"table": "def", "token": "t2"}]
    many = {f"lexio:t{i:03}": "x" for i in range(80)}
    assert len(seat_tokens(many)) == 50


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ("", "nick_required"),
        ("ab", "nick_too_short"),
        ("a" * 21, "nick_too_long"),
        ("al ice", "nick_bad_chars"),
        ("al!ce", "nick_bad_chars"),
        ("Éloïse_2-b", None),
    ],
)
def test_the_nickname_rule_is_the_relays(raw: str, problem: str | None) -> None:
    assert nickname_problem(raw) == problem


# -- my data: export and deletion (issue 29, point 5) --------------------------------------------------------
def _my_account() -> tuple[Client, FakeBrowser]:
    client, browser = client_at("/account")
    browser.answer("GET", "/api/account", 200, ME)
    browser.answer("GET", "/api/tables", 200, {"tables": [], "live": []})
    client.begin()
    browser.settle()
    return client, browser


def test_my_account_offers_the_games_archive_as_a_download_of_the_relays_export() -> None:
    _, browser = _my_account()
    body = browser.regions["acct-body"]
    assert 'id="export-games"' in body and 'download="lexio-Alice-games.zip"' in body
    assert re.search(r'id="export-games" href="[^"]*/api/account/export"', body)
    assert "Exporter mes parties (archive GCG)" in text(browser, "acct-body")


def test_delete_opens_a_modal_dialog_on_its_field_and_escape_closes_it_back_on_the_button() -> None:
    client, browser = _my_account()
    ui(client, t="click", act="account-delete")
    dialog = browser.regions["dialog-root"]
    assert 'role="alertdialog"' in dialog and 'aria-modal="true"' in dialog and 'class="modal' in dialog
    assert "Pour confirmer, tapez votre pseudo : Alice" in text(browser, "dialog-root")
    assert browser.last_patch.get("focus") == "delete-confirm"
    ui(client, t="key", key="Escape")
    assert browser.regions["dialog-root"] == ""
    assert browser.last_patch.get("focus") == "delete-account"
    assert not any(u.endswith("/api/account/delete") for _, u, _ in browser.requests)


def test_a_wrong_nickname_is_said_in_the_dialog_and_nothing_is_posted() -> None:
    client, browser = _my_account()
    ui(client, t="click", act="account-delete")
    ui(client, t="bind", bind="acct-delete", value="Alicia", type="input")
    ui(client, t="click", act="account-delete-go")
    browser.settle()
    assert 'data-code="bad_confirm"' in browser.regions["dialog-root"]
    assert 'aria-invalid="true"' in browser.regions["dialog-root"]
    assert not any(u.endswith("/api/account/delete") for _, u, _ in browser.requests)


def test_deleting_posts_the_nickname_then_signs_the_page_out_goes_home_and_says_so() -> None:
    client, browser = _my_account()
    browser.answer("POST", "/api/account/delete", 200, {"deleted": "Alice"})
    ui(client, t="click", act="account-delete")
    ui(client, t="bind", bind="acct-delete", value=" alice ", type="input")  # as the relay compares
    ui(client, t="click", act="account-delete-go")
    browser.settle()
    assert posted(browser, "/api/account/delete") == {"confirm": "alice"}
    assert client.state.member is None and client.session.account.nickname is None
    assert client.session.addr.path == "/" and browser.regions["dialog-root"] == ""
    assert 'id="signin-link"' in browser.regions["hdr"]
    assert "Le compte Alice est supprimé et vous êtes déconnecté." in text(browser, "banner")


def test_a_refused_deletion_keeps_the_dialog_open_with_the_reason_in_words() -> None:
    client, browser = _my_account()
    browser.answer("POST", "/api/account/delete", 503, {"code": "accounts_unavailable", "message": "down"})
    ui(client, t="click", act="account-delete")
    ui(client, t="bind", bind="acct-delete", value="Alice", type="input")
    ui(client, t="click", act="account-delete-go")
    browser.settle()
    assert "Les comptes sont indisponibles" in text(browser, "dialog-root")
    assert client.session.account.nickname == "Alice"
