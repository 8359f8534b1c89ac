"""Moderation (SQLite and PostgreSQL): blocks hide a player's chat and keep them from my private tables;
reports keep what the relay saw; the host's ``lexio admin`` bans an account or an address (the player is told
why and until when), lifts a ban, renames a nickname; a deleted account's seat link seats nobody."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import aiohttp
import pytest
from accountkit import Browser
from relaykit import Player, RunningRelay, create_table, wait_until

from relay.accounts import admin
from relay.accounts.moderation import NOTE_MAX, REPORTS_PER_DAY
from relay.config import Config
from relay.http.keys import ACCOUNTS_KEY, CONFIG_KEY


def _db_arg(site: RunningRelay) -> str:
    config: Config = site.app[CONFIG_KEY]
    return config.journal_url or str(config.db)


def _admin(site: RunningRelay, *args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = admin.main(["--db", _db_arg(site), *args])
    out, err = capsys.readouterr()
    return code, out, err


async def _seated(
    site: RunningRelay, browsers: list[Browser], *, public: bool = True
) -> tuple[str, list[Player]]:
    table_id = await create_table(browsers[0].session, site, turn_seconds=60, public=public)
    players = []
    for i, b in enumerate(browsers):
        p = await Player.connect(b.session, site, table_id)
        await p.join(f"guest{i}")
        players.append(p)
    return table_id, players


def _chat_texts(p: Player, start: int = 0) -> list[str]:
    out: list[str] = []
    for f in p.frames[start:]:
        if f["type"] == "chat":
            out.append(f["message"]["text"])
        elif f["type"] == "chat_history":
            out += [m["text"] for m in f["messages"]]
    return out


async def _say(p: Player, text: str) -> None:
    ans = await p.send({"type": "chat", "text": text})
    assert ans["type"] == "ack", ans


# -- blocks ---------------------------------------------------------------------------------------------
async def test_a_blocked_players_chat_is_hidden_from_the_blocker_live_and_in_the_history(
    site: RunningRelay, new_browser: Callable[[], Browser]
) -> None:
    zoe, max_, guest = new_browser(), new_browser(), new_browser()
    await zoe.signup("Zoe")
    await max_.signup("Max")
    table_id, (pz, pm, pg) = await _seated(site, [zoe, max_, guest])
    status, answer, _ = await zoe.post("/api/account/blocks", {"nickname": "max"})
    assert (status, answer) == (201, {"blocked": "Max"})

    await _say(pm, "an insult")
    await _say(pg, "hello from a guest")
    await pz.wait_for(lambda f: f["type"] == "chat" and f["message"]["text"] == "hello from a guest")
    assert "an insult" not in _chat_texts(pz)
    await pg.wait_for(lambda f: f["type"] == "chat" and f["message"]["text"] == "an insult")

    back = await Player.connect(zoe.session, site, table_id)  # a reload: the history leaves Max out too
    assert (await back.send({"type": "join", "token": pz.token}))["type"] == "welcome"
    await back.wait_for(lambda f: f["type"] == "chat_history")
    assert _chat_texts(back) == ["hello from a guest"]

    status, _, _ = await zoe.post("/api/account/blocks/remove", {"nickname": "Max"})
    assert status == 200
    start = len(back.frames)
    await _say(pm, "sorry")
    await back.wait_for(lambda f: f["type"] == "chat" and f["message"]["text"] == "sorry", start=start)
    for p in (pz, pm, pg, back):
        await p.close()


async def test_a_blocked_player_cannot_sit_at_the_blockers_private_table_but_may_at_a_public_one(
    site: RunningRelay, new_browser: Callable[[], Browser]
) -> None:
    zoe, max_ = new_browser(), new_browser()
    await zoe.signup("Zoe")
    await max_.signup("Max")
    assert (await zoe.post("/api/account/blocks", {"nickname": "Max"}))[0] == 201
    private, (pz,) = await _seated(site, [zoe], public=False)
    pm = await Player.connect(max_.session, site, private)
    refused = await pm.send({"type": "join", "name": "Max"})
    assert (refused["type"], refused["code"]) == ("error", "blocked")
    public, (pz2,) = await _seated(site, [zoe], public=True)
    pm2 = await Player.connect(max_.session, site, public)
    assert (await pm2.send({"type": "join", "name": "Max"}))["type"] == "welcome"
    for p in (pz, pm, pz2, pm2):
        await p.close()


async def test_blocking_refuses_oneself_an_unknown_nickname_a_guest_and_another_sites_page(
    site: RunningRelay, new_browser: Callable[[], Browser]
) -> None:
    zoe, guest = new_browser(), new_browser()
    await zoe.signup("Zoe")
    evil = {"origin": "http://evil.example"}
    cases = [
        (zoe, "/api/account/blocks", {"nickname": "zoe"}, {}, 400, "block_self"),
        (zoe, "/api/account/blocks", {"nickname": "nobody"}, {}, 404, "no_such_player"),
        (zoe, "/api/account/blocks", {"nickname": ["x"]}, {}, 404, "no_such_player"),
        (zoe, "/api/account/blocks/remove", {"nickname": "Zoe"}, {}, 404, "not_blocked"),
        (guest, "/api/account/blocks", {"nickname": "Zoe"}, {}, 401, "not_signed_in"),
        (zoe, "/api/account/blocks", {"nickname": "Zoe"}, evil, 403, "bad_origin"),
    ]
    for who, path, body, kw, status, code in cases:
        got, answer, _ = await who.post(path, body, **kw)
        assert (got, answer["code"]) == (status, code), (path, body, answer)
    status, me = await zoe.me()
    assert me["blocked"] == []


# -- reports --------------------------------------------------------------------------------------------
async def test_a_report_keeps_the_reason_the_note_the_table_the_chat_and_the_reported_account_and_address(
    site: RunningRelay, new_browser: Callable[[], Browser], capsys: pytest.CaptureFixture[str]
) -> None:
    zoe, max_ = new_browser(), new_browser()
    await zoe.signup("Zoe")
    await max_.signup("Max")
    table_id, (pz, pm) = await _seated(site, [zoe, max_])
    await _say(pm, "you play like a potato")
    ans = await pz.send({"type": "report", "seat": pm.seat, "reason": "insult", "note": "  rude\nagain "})
    assert ans["type"] == "ack", ans

    code, out, _ = _admin(site, "reports", "--json", capsys=capsys)
    assert code == 0
    (report,) = [json.loads(line) for line in out.splitlines()]
    assert report["reporter"] == "Zoe" and report["account"] == "Max" and report["name"] == "Max"
    assert (report["table_id"], report["seat"], report["reason"]) == (table_id, pm.seat, "insult")
    assert report["note"] == "rude again"
    assert report["address"] == "127.0.0.1"
    assert [line["text"] for line in report["excerpt"]] == ["you play like a potato"]
    code, out, _ = _admin(site, "reports", capsys=capsys)
    assert "Max (account Max)" in out and "| Max: you play like a potato" in out

    assert _admin(site, "close-report", report["id"], capsys=capsys)[0] == 0
    assert _admin(site, "reports", capsys=capsys)[1] == ""
    code, _, err = _admin(site, "close-report", report["id"], capsys=capsys)
    assert code == 2 and "no_such_report" in err
    for p in (pz, pm):
        await p.close()


async def test_reports_refuse_a_guest_oneself_an_empty_seat_a_bad_reason_or_note_and_floods(
    site: RunningRelay, new_browser: Callable[[], Browser]
) -> None:
    zoe, max_, guest = new_browser(), new_browser(), new_browser()
    await zoe.signup("Zoe")
    await max_.signup("Max")
    _, (pz, pm, pg) = await _seated(site, [zoe, max_, guest])
    cases: list[tuple[Player, dict[str, Any], str]] = [
        (pg, {"seat": pm.seat, "reason": "insult"}, "not_signed_in"),
        (pz, {"seat": pz.seat, "reason": "insult"}, "report_self"),
        (pz, {"seat": 3, "reason": "insult"}, "bad_seat"),  # nobody sits there
        (pz, {"seat": pm.seat, "reason": "rude"}, "bad_reason"),
        (pz, {"seat": pm.seat, "reason": "other", "note": "x" * (NOTE_MAX + 1)}, "bad_note"),
        (pz, {"seat": pm.seat, "reason": "other", "note": "a\u0000b"}, "bad_note"),
        (pz, {"seat": 9, "reason": "insult"}, "bad_message"),
    ]
    for who, body, code in cases:
        ans = await who.send({"type": "report", **body})
        assert (ans["type"], ans["code"]) == ("error", code), (body, ans)
    for _ in range(REPORTS_PER_DAY):
        assert (await pz.send({"type": "report", "seat": pm.seat, "reason": "spam"}))["type"] == "ack"
    ans = await pz.send({"type": "report", "seat": pm.seat, "reason": "spam"})
    assert (ans["type"], ans["code"]) == ("error", "too_many_reports")
    with site.app[ACCOUNTS_KEY].db.transaction() as tx:
        assert tx.rows("SELECT COUNT(*) FROM reports")[0][0] == REPORTS_PER_DAY
    for p in (pz, pm, pg):
        await p.close()


# -- bans -----------------------------------------------------------------------------------------------
async def test_a_banned_account_cannot_sit_nor_chat_is_told_why_and_until_when_and_a_lift_frees_it(
    site: RunningRelay, new_browser: Callable[[], Browser], capsys: pytest.CaptureFixture[str]
) -> None:
    zoe, max_ = new_browser(), new_browser()
    await zoe.signup("Zoe")
    await max_.signup("Max")
    _, (pz, pm) = await _seated(site, [zoe, max_])
    code, out, _ = _admin(
        site, "ban", "--account", "max", "--for", "3d", "--reason", "insults", capsys=capsys
    )
    assert code == 0 and out.startswith("ban ")
    ban_id = out.split()[1].rstrip(":")

    refused = await pm.send({"type": "chat", "text": "still here"})
    assert (refused["type"], refused["code"]) == ("error", "banned")
    assert refused["params"]["reason"] == "insults"
    until = refused["params"]["until"]
    assert 3 * 86_400_000 - 60_000 < until - site.referee.now_ms() <= 3 * 86_400_000
    other = await create_table(zoe.session, site)
    pm2 = await Player.connect(max_.session, site, other)
    refused = await pm2.send({"type": "join", "name": "Max"})
    assert (refused["code"], refused["params"]["until"]) == ("banned", until)
    assert "insults" in refused["message"]
    _, me = await max_.me()
    assert me["ban"] == {"reason": "insults", "until": until}
    code, out, _ = _admin(site, "bans", "--json", capsys=capsys)
    assert json.loads(out)["nickname"] == "Max"

    assert _admin(site, "lift", ban_id, capsys=capsys)[0] == 0
    assert (await pm2.send({"type": "join", "name": "Max"}))["type"] == "welcome"
    _, me = await max_.me()
    assert me["ban"] is None
    code, _, err = _admin(site, "lift", ban_id, capsys=capsys)
    assert code == 2 and "no_such_ban" in err
    for p in (pz, pm, pm2):
        await p.close()


async def test_an_address_ban_stops_guests_and_sign_ups_from_that_address_until_it_ends(
    site: RunningRelay, new_browser: Callable[[], Browser], capsys: pytest.CaptureFixture[str]
) -> None:
    guest = new_browser()
    code, _, _ = _admin(
        site, "ban", "--address", "127.0.0.1", "--for", "2h", "--reason", "spam", capsys=capsys
    )
    assert code == 0
    table_id = await create_table(guest.session, site)
    p = await Player.connect(guest.session, site, table_id)
    refused = await p.send({"type": "join", "name": "Spammer"})
    assert (refused["code"], refused["params"]["reason"]) == ("banned", "spam")
    status, answer, _ = await guest.post("/api/account/signup/options", {"nickname": "Spammer"})
    assert (status, answer["code"]) == (403, "banned")
    await p.close()


def test_the_admin_command_refuses_bad_bans_with_a_code_and_changes_nothing(
    site: RunningRelay, capsys: pytest.CaptureFixture[str]
) -> None:
    for args, code in [
        (["ban", "--account", "nobody", "--for", "1d", "--reason", "x"], "no_such_player"),
        (["ban", "--address", "10.0.0.1", "--for", "1d", "--reason", "   "], "bad_ban"),
        (["lift", "deadbeef"], "no_such_ban"),
        (["rename", "nobody", "Someone"], "no_such_player"),
    ]:
        status, _, err = _admin(site, *args, capsys=capsys)
        assert status == 2 and code in err, (args, err)
    with pytest.raises(SystemExit):
        _admin(site, "ban", "--account", "x", "--for", "soon", "--reason", "x", capsys=capsys)
    assert _admin(site, "bans", "--all", capsys=capsys)[1] == ""


# -- renames and deleted seats ----------------------------------------------------------------------------
async def test_a_host_renames_an_offensive_nickname_everywhere_the_account_is_shown(
    site: RunningRelay, new_browser: Callable[[], Browser], capsys: pytest.CaptureFixture[str]
) -> None:
    rude, zoe = new_browser(), new_browser()
    await rude.signup("Rude_Name")
    await zoe.signup("Zoe")
    code, out, _ = _admin(site, "rename", "rude_name", "Player_7", capsys=capsys)
    assert (code, out.strip()) == (0, "rude_name is now Player_7")
    _, me = await rude.me()
    assert me["account"]["nickname"] == "Player_7"
    async with aiohttp.ClientSession() as s, s.get(site.url + "/api/u/Rude_Name") as resp:
        assert resp.status == 404
    status, _, err = _admin(site, "rename", "Player_7", "zoe", capsys=capsys)
    assert status == 2 and "nickname_taken" in err


async def test_a_deleted_accounts_seat_link_no_longer_seats_anyone(
    site: RunningRelay, new_browser: Callable[[], Browser]
) -> None:
    zoe, max_ = new_browser(), new_browser()
    await zoe.signup("Zoe")
    await max_.signup("Max")
    table_id, (pz, pm) = await _seated(site, [zoe, max_])
    assert (await pz.send({"type": "start"}))["type"] == "ack"
    token = pz.token
    await pz.close()
    status, _, _ = await zoe.post("/api/account/delete", {"confirm": "Zoe"})
    assert status == 200
    back = await Player.connect(zoe.session, site, table_id)
    refused = await back.send({"type": "join", "token": token})
    assert (refused["type"], refused["code"]) == ("error", "seat_deleted")
    await wait_until(lambda: pm.status == "playing")
    for p in (pm, back):
        await p.close()
