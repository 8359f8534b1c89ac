"""Issue 31, turn reminders on My account, on CPython: a Client on fake doors whose page answers the push
requests as the page's bootstrap would (a ``push`` event) and whose relay answers docs/protocol.md's
"Web Push" calls."""

from __future__ import annotations

import json
from typing import Any

from app.glue.client import Client
from fake_browser import FakeBrowser, client_at, text, ui

ME = {"account": {"id": "a1", "nickname": "Alice", "created_ms": 0}, "passkeys": [], "recovery_codes_left": 8}
SUB = {
    "endpoint": "https://fcm.googleapis.com/fcm/send/x",
    "expirationTime": None,
    "keys": {"p256dh": "p", "auth": "a"},
}


def asked(browser: FakeBrowser, op: str) -> dict[str, Any]:
    found = [p["webpush"] for p in browser.patches if "webpush" in p and p["webpush"]["op"] == op]
    assert found, f"no {op} request handed to the page"
    return dict(found[-1])


def my_account(subscribed: bool) -> tuple[Client, FakeBrowser]:
    client, browser = client_at("/account")
    browser.answer("GET", "/api/account", 200, ME)
    browser.answer("GET", "/api/tables", 200, {"tables": [], "live": []})
    client.begin()
    browser.settle()
    state = asked(browser, "state")
    ui(client, t="push", id=state["id"], op="state", ok=True, subscribed=subscribed, permission="default")
    browser.settle()
    return client, browser


def test_turning_reminders_on_subscribes_on_the_page_with_the_relays_key_then_registers_it() -> None:
    client, browser = my_account(subscribed=False)
    body = browser.regions["acct-body"]
    assert 'id="push-on"' in body and 'data-state="off"' in body and 'id="push-title"' in body
    browser.answer("GET", "/api/push/key", 200, {"key": "BKEY"})
    browser.answer("POST", "/api/account/push", 201, {"subscribed": SUB["endpoint"]})
    ui(client, t="click", act="push-on")
    assert 'aria-busy="true"' in browser.regions["acct-body"]
    browser.settle()
    sub = asked(browser, "subscribe")
    assert sub["key"] == "BKEY"
    ui(client, t="push", id=sub["id"], op="subscribe", ok=True, subscription=SUB)
    browser.settle()
    posts = [
        json.loads(b or "{}")
        for m, u, b in browser.requests
        if m == "POST" and u.endswith("/api/account/push")
    ]
    assert posts == [{"subscription": SUB}]
    assert (
        'data-state="on"' in browser.regions["acct-body"] and 'id="push-off"' in browser.regions["acct-body"]
    )
    assert "activés" in text(browser, "acct-msg")


def test_turning_them_off_unsubscribes_then_tells_the_relay() -> None:
    client, browser = my_account(subscribed=True)
    assert 'id="push-off"' in browser.regions["acct-body"]
    browser.answer("POST", "/api/account/push/remove", 200, {"removed": 1})
    ui(client, t="click", act="push-off")
    off = asked(browser, "unsubscribe")
    ui(client, t="push", id=off["id"], op="unsubscribe", ok=True, endpoint=SUB["endpoint"])
    browser.settle()
    posts = [json.loads(b or "{}") for m, u, b in browser.requests if u.endswith("/api/account/push/remove")]
    assert posts == [{"endpoint": SUB["endpoint"]}]
    assert 'data-state="off"' in browser.regions["acct-body"]


def test_a_refusal_is_said_in_words_and_an_unsupported_browser_gets_no_button() -> None:
    client, browser = my_account(subscribed=False)
    browser.answer("GET", "/api/push/key", 200, {"key": "BKEY"})
    ui(client, t="click", act="push-on")
    browser.settle()
    sub = asked(browser, "subscribe")
    ui(client, t="push", id=sub["id"], op="subscribe", ok=False, error="NotAllowedError")
    browser.settle()
    assert "bloquées" in text(browser, "acct-msg")
    assert 'id="push-on"' in browser.regions["acct-body"]
    client2, browser2 = client_at("/account")
    browser2.answer("GET", "/api/account", 200, ME)
    browser2.answer("GET", "/api/tables", 200, {"tables": [], "live": []})
    client2.begin()
    browser2.settle()
    state = asked(browser2, "state")
    ui(client2, t="push", id=state["id"], op="state", ok=False, error="NotSupportedError")
    browser2.settle()
    body = browser2.regions["acct-body"]
    assert 'data-state="unsupported"' in body and "push-on" not in body
