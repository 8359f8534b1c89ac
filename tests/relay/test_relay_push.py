"""Web Push reminders (issue #31, docs/protocol.md "Web Push"): subscriptions through the account API, the
"your turn" notice and the 80 % reminder decrypted at a push service the test runs on loopback
(harness/push_endpoint.py), pruning on 404/410, refusals, sign-out and deletion, one VAPID key kept across
restarts, and a reminder sent once by two relays sweeping the same PostgreSQL database."""

from __future__ import annotations

import asyncio
import base64
import os
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from accountkit import Browser
from harness.push_endpoint import PushEndpoint, Subscriber, b64url
from relaykit import FakeClock, Player, RunningRelay, create_table, start_relay, wait_until

from relay.accounts.db import Db, PostgresDb, migrate
from relay.accounts.errors import AccountError
from relay.http.keys import ACCOUNTS_KEY
from relay.http.push import PUSH_KEY, VAPID_KEY
from relay.push.reminders import Reminders
from relay.push.sender import Sender
from relay.push.store import PushStore, parse_subscription
from relay.push.vapid import load_or_create

DAY_S = 86_400
HOUR_MS = 3_600_000


@pytest.fixture
async def push() -> AsyncIterator[PushEndpoint]:
    endpoint = await PushEndpoint().start()
    try:
        yield endpoint
    finally:
        await endpoint.stop()


@pytest.fixture
async def prelay(
    tmp_path: Path, clock: FakeClock, journal_settings: dict[str, Any], push: PushEndpoint
) -> AsyncIterator[RunningRelay]:
    running = await start_relay(tmp_path, clock=clock, push_allow_loopback=True, **journal_settings)
    push.vapid_key = running.app[VAPID_KEY].public_key
    try:
        yield running
    finally:
        await running.stop()


async def player(relay: RunningRelay, nickname: str) -> tuple[Browser, str]:
    browser = Browser.at(relay.url)
    answer = await browser.signup(nickname)
    return browser, str(answer["account"]["id"])


async def subscribed(browser: Browser, push: PushEndpoint) -> Subscriber:
    sub = push.subscribe()
    status, answer, _ = await browser.post("/api/account/push", {"subscription": sub.to_json()})
    assert status == 201, answer
    return sub


def rows(db: Db, sql: str, params: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:
    with db.transaction() as tx:
        return tx.rows(sql, params)


def endpoints(relay: RunningRelay) -> set[str]:
    return {str(r[0]) for r in rows(relay.app[ACCOUNTS_KEY].db, "SELECT endpoint FROM push_subscriptions")}


def assert_notice(payload: dict[str, Any], table_id: str, pattern: str) -> None:
    """Exactly the four fields, and a body that is only "your turn at table X, N hours left"."""
    assert set(payload) == {"title", "body", "url", "table"}, payload
    assert payload["table"] == table_id and payload["url"] == f"/t/{table_id}"
    assert payload["title"] == "Lexio : à vous de jouer"
    assert re.fullmatch(pattern, payload["body"]), payload["body"]


async def test_the_vapid_key_is_made_once_served_and_kept_across_restarts(
    tmp_path: Path, journal_settings: dict[str, Any]
) -> None:
    first = await start_relay(tmp_path, **journal_settings)
    try:
        async with aiohttp.ClientSession() as http, http.get(first.url + "/api/push/key") as resp:
            assert resp.status == 200
            key = (await resp.json())["key"]
        raw = base64.urlsafe_b64decode(key + "=" * (-len(key) % 4))
        assert len(raw) == 65 and raw[0] == 4
        assert rows(first.app[ACCOUNTS_KEY].db, "SELECT COUNT(*) FROM push_vapid") == [(1,)]
    finally:
        await first.stop()
    again = await start_relay(tmp_path, **journal_settings)
    try:
        assert again.app[VAPID_KEY].public_key == key
        assert rows(again.app[ACCOUNTS_KEY].db, "SELECT COUNT(*) FROM push_vapid") == [(1,)]
    finally:
        await again.stop()


async def test_a_turn_sends_your_turn_then_the_sweep_sends_the_80_percent_reminder_once(
    prelay: RunningRelay, push: PushEndpoint, clock: FakeClock
) -> None:
    zoe, zoe_id = await player(prelay, "zoe")
    phone, laptop = await subscribed(zoe, push), await subscribed(zoe, push)
    reminders = prelay.app[PUSH_KEY]
    deadline = clock() + DAY_S * 1000

    assert await reminders.turn_began("T1", 0, zoe_id, deadline, DAY_S) == 2
    assert push.problems == []
    for sub in (phone, laptop):
        (got,) = push.to(sub)
        assert_notice(got.payload, "T1", r"À vous de jouer à la table T1 : il reste 24 h\.")
        assert got.headers["urgency"] == "normal" and got.headers["topic"] == "T1"
        assert int(got.headers["ttl"]) == DAY_S
    # The same turn beginning again (a restart, another relay taking the table) sends nothing more.
    assert await reminders.turn_began("T1", 0, zoe_id, deadline, DAY_S) == 0

    clock.advance(DAY_S * 800 - 1)  # one ms before 80 % of the turn
    assert await reminders.sweep(clock()) == 0
    clock.advance(1)
    assert await reminders.sweep(clock()) == 2
    assert await reminders.sweep(clock()) == 0
    clock.advance(HOUR_MS)
    assert await reminders.sweep(clock()) == 0
    assert push.problems == []
    for sub in (phone, laptop):
        _first, late = push.to(sub)
        assert_notice(late.payload, "T1", r"Plus que 5 h pour jouer à la table T1\.")  # 4.8 h, rounded up
        assert late.headers["urgency"] == "high"
    await zoe.close()


async def test_no_reminder_when_the_turn_ended_first_nor_for_guests_or_short_turns(
    prelay: RunningRelay, push: PushEndpoint, clock: FakeClock
) -> None:
    zoe, zoe_id = await player(prelay, "zoe")
    sub = await subscribed(zoe, push)
    reminders = prelay.app[PUSH_KEY]
    assert await reminders.turn_began("T2", 1, zoe_id, clock() + 3 * HOUR_MS, 3 * 3600) == 1
    await reminders.turn_ended("T2", 1)
    clock.advance(3 * HOUR_MS - 1)
    assert await reminders.sweep(clock()) == 0
    # A 60 s game, a turn just under an hour, a guest's seat: no push at all.
    assert await reminders.turn_began("T3", 0, zoe_id, clock() + 60_000, 60) == 0
    assert await reminders.turn_began("T4", 0, zoe_id, clock() + HOUR_MS, 3599) == 0
    assert await reminders.turn_began("T5", 0, None, clock() + DAY_S * 1000, DAY_S) == 0
    clock.advance(DAY_S * 1000)
    assert await reminders.sweep(clock()) == 0
    assert len(push.to(sub)) == 1 and push.problems == []
    db = prelay.app[ACCOUNTS_KEY].db
    assert rows(db, "SELECT COUNT(*) FROM push_pending") == [(0,)]
    await zoe.close()


async def test_a_reminder_due_after_its_deadline_is_dropped_unsent(
    prelay: RunningRelay, push: PushEndpoint, clock: FakeClock
) -> None:
    """The relay was down through the end of the turn: telling the player now would be wrong."""
    zoe, zoe_id = await player(prelay, "zoe")
    sub = await subscribed(zoe, push)
    reminders = prelay.app[PUSH_KEY]
    await reminders.turn_began("T6", 0, zoe_id, clock() + 2 * HOUR_MS, 7200)
    clock.advance(2 * HOUR_MS)
    assert await reminders.sweep(clock()) == 0
    assert len(push.to(sub)) == 1
    await zoe.close()


@pytest.mark.parametrize("status", [404, 410])
async def test_a_gone_subscription_is_removed_and_a_failing_one_kept(
    prelay: RunningRelay, push: PushEndpoint, clock: FakeClock, status: int
) -> None:
    zoe, zoe_id = await player(prelay, "zoe")
    gone, failing, fine = [await subscribed(zoe, push) for _ in range(3)]
    push.answer(gone, status)
    push.answer(failing, 500)
    reminders = prelay.app[PUSH_KEY]
    assert await reminders.turn_began("T7", 0, zoe_id, clock() + DAY_S * 1000, DAY_S) == 1
    assert endpoints(prelay) == {failing.endpoint, fine.endpoint}
    assert [len(push.to(s)) for s in (gone, failing, fine)] == [1, 1, 1] and push.problems == []
    await zoe.close()


def _sub_with(sub: Subscriber, **change: Any) -> dict[str, Any]:
    body = sub.to_json()
    for key, value in change.items():
        if key in ("p256dh", "auth"):
            body["keys"][key] = value
        elif value is None:
            body.pop(key)
        else:
            body[key] = value
    return body


async def test_every_bad_subscription_is_refused_with_its_code_and_nothing_is_stored(
    prelay: RunningRelay, push: PushEndpoint
) -> None:
    zoe, _ = await player(prelay, "zoe")
    max_, _ = await player(prelay, "max")
    sub = push.subscribe()
    point = bytes(sub.private_key.public_key().public_numbers().x.to_bytes(32, "big"))
    bad: list[Any] = [
        None,
        "https://fcm.googleapis.com/fcm/send/x",
        _sub_with(sub, endpoint="https://evil.example.com/push/1"),  # not a push service
        _sub_with(sub, endpoint="https://fcm.googleapis.com.evil.example/x"),
        _sub_with(sub, endpoint="http://fcm.googleapis.com/fcm/send/x"),
        _sub_with(sub, endpoint="https://10.0.0.1/push/1"),
        _sub_with(sub, endpoint="https://user@fcm.googleapis.com/fcm/send/x"),
        _sub_with(sub, endpoint="https://fcm.googleapis.com:notaport/x"),
        _sub_with(sub, endpoint="not a url at all"),
        _sub_with(sub, endpoint="https://fcm.googleapis.com/" + "x" * 1000),
        _sub_with(sub, endpoint=12),
        _sub_with(sub, endpoint=None),
        _sub_with(sub, keys=None),
        _sub_with(sub, keys=[]),
        _sub_with(sub, expirationTime="soon"),
        _sub_with(sub, p256dh=b64url(b"\x02" + point)),  # compressed
        _sub_with(sub, p256dh=b64url(b"\x04" + b"\x01" * 64)),  # not on the curve
        _sub_with(sub, p256dh="not+base64/url"),
        _sub_with(sub, p256dh=None),
        _sub_with(sub, auth=b64url(b"\x00" * 15)),
        _sub_with(sub, auth="%%%%"),
        _sub_with(sub, auth=7),
    ]
    for body in bad:
        status, answer, _ = await zoe.post("/api/account/push", {"subscription": body})
        assert (status, answer["code"]) == (400, "bad_subscription"), body
    status, answer, _ = await zoe.post(
        "/api/account/push", {"subscription": sub.to_json()}, origin="https://x.org"
    )
    assert (status, answer["code"]) == (403, "bad_origin")
    anonymous = Browser.at(prelay.url)
    status, answer, _ = await anonymous.post("/api/account/push", {"subscription": sub.to_json()})
    assert (status, answer["code"]) == (401, "not_signed_in")
    await anonymous.close()
    assert endpoints(prelay) == set()

    # Another account's subscription: refused, and it stays the first account's.
    status, _, _ = await zoe.post("/api/account/push", {"subscription": sub.to_json()})
    assert status == 201
    status, answer, _ = await max_.post("/api/account/push", {"subscription": sub.to_json()})
    assert (status, answer["code"]) == (409, "push_taken")
    status, answer, _ = await max_.post("/api/account/push/remove", {"endpoint": sub.endpoint})
    assert (status, answer) == (200, {"removed": 0})
    db = prelay.app[ACCOUNTS_KEY].db
    owner = rows(db, "SELECT a.nickname FROM push_subscriptions p JOIN accounts a ON a.id = p.account_id")
    assert owner == [("zoe",)]
    # Registering again is one subscription; ten at most.
    status, _, _ = await zoe.post("/api/account/push", {"subscription": sub.to_json()})
    assert status == 201 and len(endpoints(prelay)) == 1
    for _ in range(9):
        await subscribed(zoe, push)
    status, answer, _ = await zoe.post("/api/account/push", {"subscription": push.subscribe().to_json()})
    assert (status, answer["code"]) == (409, "too_many_subscriptions")
    assert len(endpoints(prelay)) == 10
    status, answer, _ = await zoe.post("/api/account/push/remove", {"endpoint": sub.endpoint})
    assert (status, answer) == (200, {"removed": 1})
    assert len(endpoints(prelay)) == 9 and sub.endpoint not in endpoints(prelay)
    await zoe.close()
    await max_.close()


def test_loopback_endpoints_only_with_the_test_flag() -> None:
    endpoint = PushEndpoint(url="http://127.0.0.1:9")
    body = endpoint.subscribe().to_json()
    services = ("fcm.googleapis.com",)
    with pytest.raises(AccountError) as refused:
        parse_subscription(body, services, allow_loopback=False)
    assert refused.value.code == "bad_subscription"
    assert parse_subscription(body, services, allow_loopback=True).endpoint == body["endpoint"]
    real = dict(body, endpoint="https://updates.fcm.googleapis.com/wpush/v2/abc")
    assert parse_subscription(real, services, allow_loopback=False).endpoint == real["endpoint"]


async def test_sign_out_removes_that_browsers_subscriptions_and_sign_out_everywhere_all(
    prelay: RunningRelay, push: PushEndpoint
) -> None:
    phone, _ = await player(prelay, "zoe")
    laptop = Browser.at(prelay.url)
    status, _ = await laptop.signin(phone.passkeys[0])
    assert status == 200
    on_phone, on_laptop = await subscribed(phone, push), await subscribed(laptop, push)
    status, _, _ = await phone.post("/api/account/signout")
    assert status == 200
    assert endpoints(prelay) == {on_laptop.endpoint}
    assert on_phone.endpoint not in endpoints(prelay)
    again = await subscribed(laptop, push)
    status, _, _ = await laptop.post("/api/account/signout-all")
    assert status == 200 and again.endpoint not in endpoints(prelay)
    assert endpoints(prelay) == set()
    await phone.close()
    await laptop.close()


async def test_deleting_the_account_removes_its_subscriptions_and_reminders(
    prelay: RunningRelay, push: PushEndpoint, clock: FakeClock
) -> None:
    zoe, zoe_id = await player(prelay, "zoe")
    max_, _ = await player(prelay, "max")
    await subscribed(zoe, push)
    kept = await subscribed(max_, push)
    await prelay.app[PUSH_KEY].turn_began("T8", 0, zoe_id, clock() + DAY_S * 1000, DAY_S)
    status, _, _ = await zoe.post("/api/account/delete", {"confirm": "zoe"})
    assert status == 200
    assert endpoints(prelay) == {kept.endpoint}
    db = prelay.app[ACCOUNTS_KEY].db
    assert rows(db, "SELECT COUNT(*) FROM push_pending WHERE account_id = ?", (zoe_id,)) == [(0,)]
    await zoe.close()
    await max_.close()


@pytest.mark.parametrize("journal_settings", ["postgresql"], indirect=True)
async def test_two_relays_sweeping_one_database_send_each_reminder_once(
    prelay: RunningRelay, push: PushEndpoint, clock: FakeClock, journal_settings: dict[str, Any]
) -> None:
    zoe, zoe_id = await player(prelay, "zoe")
    sub = await subscribed(zoe, push)
    other_db = PostgresDb(journal_settings["journal_url"])
    migrate(other_db)
    key = load_or_create(other_db, clock())
    assert key.public_key == prelay.app[VAPID_KEY].public_key  # one key for the cluster
    mine = prelay.app[PUSH_KEY]
    sender = Sender(key, "mailto:host@example.org")
    theirs = Reminders(other_db, sender, now_ms=clock, link=lambda t: f"/t/{t}")
    try:
        deadline = clock() + DAY_S * 1000
        # Both relays see the turns begin (an ownership move in between): each "your turn" goes once.
        began = await asyncio.gather(
            *(r.turn_began(f"C{n}", 0, zoe_id, deadline, DAY_S) for n in range(6) for r in (mine, theirs))
        )
        assert sum(began) == 6
        clock.advance(DAY_S * 800)
        swept = await asyncio.gather(*(r.sweep(clock()) for _ in range(3) for r in (mine, theirs)))
        assert sum(swept) == 6, swept
        late = [r.payload["table"] for r in push.to(sub) if r.payload["body"].startswith("Plus que")]
        assert sorted(late) == [f"C{n}" for n in range(6)]
        assert len(push.to(sub)) == 12 and push.problems == []
        assert rows(other_db, "SELECT COUNT(*) FROM push_sent") == [(12,)]
    finally:
        await sender.close()
        other_db.close()
        await zoe.close()


def test_the_store_never_lets_a_subscription_change_hands(tmp_path: Path) -> None:
    from relay.accounts.db import SqliteDb

    db = SqliteDb(tmp_path / "a.sqlite3")
    migrate(db)
    with db.transaction() as tx:
        for name in ("a", "b"):
            tx.run(
                "INSERT INTO accounts (id, nickname, folded, user_handle, recovery_salt, created_ms)"
                " VALUES (?, ?, ?, ?, '', 0)",
                (name, name, name, name),
            )
    store = PushStore(db)
    sub = parse_subscription(PushEndpoint(url="http://127.0.0.1:9").subscribe().to_json(), (), True)
    store.subscribe("a", sub, None, 1)
    with pytest.raises(AccountError) as taken:
        store.subscribe("b", sub, None, 2)
    assert taken.value.code == "push_taken"
    assert store.subscriptions("a") == [sub] and store.subscriptions("b") == []
    assert os.path.exists(tmp_path / "a.sqlite3")
    db.close()


async def test_a_move_at_a_days_table_tells_the_next_player_their_turn_through_push(
    prelay: RunningRelay, push: PushEndpoint
) -> None:
    zoe, _ = await player(prelay, "zoe")
    max_, _ = await player(prelay, "max")
    phone = await subscribed(max_, push)
    table_id = await create_table(zoe.session, prelay, turn_seconds=DAY_S)
    pz = await Player.connect(zoe.session, prelay, table_id)
    await pz.join("zoe")
    pm = await Player.connect(max_.session, prelay, table_id)
    await pm.join("max")
    assert (await pz.send({"type": "start"}))["type"] == "ack"  # Zoe first: she subscribed nothing
    await pm.wait_seq(pz.seq)
    assert (await pz.send({"type": "pass"}))["type"] == "ack"
    await wait_until(lambda: len(push.to(phone)) == 1)
    (got,) = push.to(phone)
    assert_notice(got.payload, table_id, rf"À vous de jouer à la table {table_id} : il reste 24 h\.")
    assert push.problems == []
    for p in (pz, pm):
        await p.close()
    await zoe.close()
    await max_.close()
