"""Passkey accounts on one relay (SQLite and PostgreSQL): sign up, sessions, sign in again, passkeys,
recovery, seat claims, and every refusal of docs/protocol.md's "Accounts" (bad signatures, replays,
counters, CSRF, limits)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from accountkit import Browser
from harness.authenticator import Passkey
from relaykit import FakeClock, Player, RunningRelay, create_table, start_relay, wait_until

import relay.accounts.service as service
from relay.accounts.errors import AccountError
from relay.accounts.nicknames import check_nickname, fold


@pytest.fixture
async def site(tmp_path: Path, journal_settings: dict[str, Any]) -> AsyncIterator[RunningRelay]:
    """A relay with its accounts in SQLite, then in PostgreSQL: every test runs on both."""
    running = await start_relay(tmp_path, clock=FakeClock(), account_burst=1000, **journal_settings)
    yield running
    await running.stop()


@pytest.fixture
async def browser(new_browser: Callable[[], Browser]) -> Browser:
    return new_browser()


@pytest.fixture
async def other(new_browser: Callable[[], Browser]) -> Browser:
    return new_browser()


def _cookie_header(resp: Any) -> str:
    return "; ".join(resp.headers.getall("Set-Cookie", []))


# -- nicknames -----------------------------------------------------------------------------------------------
def test_a_nickname_is_3_to_20_letters_digits_dashes_or_underscores() -> None:
    assert check_nickname("Éloïse_42") == "Éloïse_42"
    for bad in ("ab", "x" * 21, "a b c", "bob\x00", "zé\u200bro", "<script>", 42, None):
        with pytest.raises(AccountError) as err:
            check_nickname(bad)
        assert err.value.code == "bad_nickname"


def test_nicknames_are_one_ignoring_case_and_accents() -> None:
    assert fold("Éloïse") == fold("eloise") == fold("ELOISE")
    assert fold("Zoé") != fold("Zoe1")


# -- sign up, session, sign in -------------------------------------------------------------------------------
async def test_sign_up_gives_a_session_cookie_httponly_lax_and_eight_recovery_codes(browser: Browser) -> None:
    status, options, _ = await browser.post("/api/account/signup/options", {"nickname": "Zoé"})
    assert status == 200
    public_key = options["publicKey"]
    assert public_key["rp"]["id"] == "localhost"
    assert public_key["authenticatorSelection"]["residentKey"] == "required"
    assert len(Passkey.__dataclass_fields__) and len(public_key["user"]["id"]) >= 80  # 64 random bytes
    key = Passkey(browser.rp_id)
    status, answer, resp = await browser.post(
        "/api/account/signup",
        {"ceremony": options["ceremony"], "credential": key.create(public_key, browser.origin)},
    )
    assert status == 201, answer
    assert answer["account"]["nickname"] == "Zoé"
    assert len(answer["recovery_codes"]) == 8 and len(set(answer["recovery_codes"])) == 8
    cookie = _cookie_header(resp)
    assert "lexio_session=" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert "Path=/" in cookie and "Secure" not in cookie  # plain http here; Secure behind an https public URL
    status, me = await browser.me()
    assert status == 200 and me["account"]["nickname"] == "Zoé"
    assert [p["name"] for p in me["passkeys"]] == ["Passkey 1"] and me["recovery_codes_left"] == 8


async def test_a_session_is_stored_hashed_never_as_the_cookie(site: RunningRelay, browser: Browser) -> None:
    await browser.signup("Hashed")
    token = browser.session_cookie()
    assert token is not None
    db = site.app[service_key()].db
    with db.transaction() as tx:
        stored = [r[0] for r in tx.rows("SELECT hash FROM sessions")]
    assert stored == [service.hash_session(token)] and token not in stored


def service_key() -> Any:
    from relay.http.keys import ACCOUNTS_KEY

    return ACCOUNTS_KEY


async def test_sign_out_ends_the_session_and_the_old_cookie_is_refused(browser: Browser) -> None:
    await browser.signup("Leaving")
    token = browser.session_cookie()
    status, _, resp = await browser.post("/api/account/signout")
    assert status == 200 and "lexio_session=" in _cookie_header(resp)
    assert (await browser.me())[0] == 401
    browser.session.cookie_jar.update_cookies({"lexio_session": token or ""})
    status, body = await browser.me()
    assert status == 401 and body["code"] == "not_signed_in"


async def test_a_passkey_signs_in_again_from_another_browser(browser: Browser, other: Browser) -> None:
    await browser.signup("Voyageur")
    key = browser.passkeys[0]
    status, answer = await other.signin(key)  # the same passkey, synced to another device
    assert status == 200, answer
    assert answer["account"]["nickname"] == "Voyageur"
    assert (await other.me())[1]["account"]["nickname"] == "Voyageur"


async def test_sign_out_everywhere_ends_every_session_of_the_account(
    browser: Browser, other: Browser
) -> None:
    await browser.signup("Partout")
    assert (await other.signin(browser.passkeys[0]))[0] == 200
    status, body, _ = await other.post("/api/account/signout-all")
    assert status == 200 and body["signed_out"] == 2
    assert (await browser.me())[0] == 401 and (await other.me())[0] == 401


async def test_a_session_slides_and_expires_thirty_days_after_it_was_last_seen(
    site: RunningRelay, browser: Browser
) -> None:
    await browser.signup("Fidèle")
    assert site.clock is not None
    day = 24 * 3600 * 1000
    site.clock.advance(20 * day)
    assert (await browser.me())[0] == 200  # seen: 30 more days from now
    site.clock.advance(20 * day)
    assert (await browser.me())[0] == 200
    site.clock.advance(31 * day)
    assert (await browser.me())[0] == 401


# -- refusals ------------------------------------------------------------------------------------------------
async def test_a_taken_nickname_is_refused_ignoring_case_and_accents(
    browser: Browser, other: Browser
) -> None:
    await browser.signup("Zoé")
    status, body, _ = await other.post("/api/account/signup/options", {"nickname": "ZOE"})
    assert status == 409 and body["code"] == "nickname_taken"


@pytest.mark.parametrize("nickname", ["ab", "x" * 21, "bad\x07bell", "with space", 7])
async def test_a_bad_nickname_is_refused_with_its_code(browser: Browser, nickname: object) -> None:
    status, body, _ = await browser.post("/api/account/signup/options", {"nickname": nickname})
    assert status == 400 and body["code"] == "bad_nickname"


@pytest.mark.parametrize(
    "path", ["/api/account/signup/options", "/api/account/signin/options", "/api/account/signout"]
)
async def test_a_cross_site_or_originless_post_is_refused_as_csrf(browser: Browser, path: str) -> None:
    for origin in ("https://evil.example", "null", ""):
        status, body, _ = await browser.post(path, {"nickname": "Victime"}, origin=origin)
        assert status == 403 and body["code"] == "bad_origin", (origin, body)


async def test_a_replayed_challenge_is_refused(browser: Browser, other: Browser) -> None:
    await browser.signup("Rejoue")
    key = browser.passkeys[0]
    status, options, _ = await other.post("/api/account/signin/options")
    credential = key.get(options["publicKey"], other.origin)
    body = {"ceremony": options["ceremony"], "credential": credential}
    assert (await other.post("/api/account/signin", body))[0] == 200
    status, answer, _ = await other.post("/api/account/signin", body)
    assert status == 400 and answer["code"] == "bad_challenge"


async def test_an_expired_challenge_is_refused(site: RunningRelay, browser: Browser) -> None:
    status, options, _ = await browser.post("/api/account/signup/options", {"nickname": "Lent"})
    assert site.clock is not None
    site.clock.advance(5 * 60 * 1000 + 1)
    credential = Passkey(browser.rp_id).create(options["publicKey"], browser.origin)
    status, answer, _ = await browser.post(
        "/api/account/signup", {"ceremony": options["ceremony"], "credential": credential}
    )
    assert status == 400 and answer["code"] == "bad_challenge"
    assert (await browser.me())[0] == 401


@pytest.mark.parametrize(
    "lie", [{"bad_signature": True}, {"as_origin": "https://evil.example"}, {"as_rp_id": "evil.example"},
            {"as_challenge": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}]
)  # fmt: skip
async def test_a_forged_sign_in_is_refused_and_opens_no_session(
    browser: Browser, other: Browser, lie: dict[str, Any]
) -> None:
    await browser.signup("Cible")
    status, answer = await other.signin(browser.passkeys[0], **lie)
    assert status == 401 and answer["code"] == "bad_credential", answer
    assert (await other.me())[0] == 401


async def test_a_passkey_unknown_here_is_refused_like_a_bad_one(browser: Browser) -> None:
    status, answer = await browser.signin(Passkey(browser.rp_id))
    assert status == 401 and answer["code"] == "bad_credential"


async def test_a_sign_counter_that_goes_backwards_is_refused(browser: Browser, other: Browser) -> None:
    await browser.signup("Clone")
    key = browser.passkeys[0]
    assert (await other.signin(key, step=5))[0] == 200
    status, answer = await other.signin(key, step=-2)  # a copy of the key, behind the original
    assert status == 401 and answer["code"] == "bad_counter"


async def test_a_forged_sign_up_is_refused_and_stores_nothing(browser: Browser) -> None:
    status, options, _ = await browser.post("/api/account/signup/options", {"nickname": "Faussaire"})
    credential = Passkey(browser.rp_id).create(options["publicKey"], "https://evil.example")
    status, answer, _ = await browser.post(
        "/api/account/signup", {"ceremony": options["ceremony"], "credential": credential}
    )
    assert status == 400 and answer["code"] == "bad_credential"
    status, options, _ = await browser.post("/api/account/signup/options", {"nickname": "Faussaire"})
    assert status == 200  # the nickname is still free


@pytest.mark.parametrize(
    "body", [{"ceremony": 5, "credential": {}}, {"ceremony": "x", "credential": "no"}, {}]
)
async def test_a_malformed_ceremony_answer_is_refused_with_a_code(
    browser: Browser, body: dict[str, Any]
) -> None:
    status, answer, _ = await browser.post("/api/account/signin", body)
    assert status in (400, 401) and answer["code"] in ("bad_challenge", "bad_credential")


async def test_ten_thousand_sign_ups_from_one_address_are_cut_short_with_retry_after(tmp_path: Path) -> None:
    relay = await start_relay(tmp_path, account_burst=5)
    browser = Browser.at(relay.url)
    try:
        codes = []
        for i in range(20):
            status, body, resp = await browser.post(
                "/api/account/signup/options", {"nickname": f"Bot{i:05d}"}
            )
            codes.append(status)
            if status == 429:
                assert body["code"] == "rate_limited" and int(resp.headers["Retry-After"]) >= 1
                break
        assert codes == [200] * 5 + [429]
    finally:
        await browser.close()
        await relay.stop()


# -- passkeys ------------------------------------------------------------------------------------------------
async def test_a_signed_in_player_adds_names_and_removes_passkeys_but_never_the_last(
    site: RunningRelay, browser: Browser
) -> None:
    await browser.signup("Trousseau")
    assert site.clock is not None
    site.clock.advance(60_000)  # the second passkey comes a minute later: listed second
    status, options, _ = await browser.post("/api/account/passkeys/options")
    assert status == 200
    excluded = options["publicKey"]["excludeCredentials"]
    assert [e["id"] for e in excluded] == [browser.passkeys[0].to_id()]
    phone = Passkey(browser.rp_id)
    status, added, _ = await browser.post(
        "/api/account/passkeys",
        {"ceremony": options["ceremony"], "credential": phone.create(options["publicKey"], browser.origin),
         "name": "Téléphone"},
    )  # fmt: skip
    assert status == 201 and added["name"] == "Téléphone"
    assert (await browser.post("/api/account/passkeys/rename", {"id": added["id"], "name": "Mon tél"}))[
        0
    ] == 200
    me = (await browser.me())[1]
    assert [p["name"] for p in me["passkeys"]] == ["Passkey 1", "Mon tél"]
    first = me["passkeys"][0]["id"]
    assert (await browser.post("/api/account/passkeys/remove", {"id": first}))[0] == 200
    status, body, _ = await browser.post("/api/account/passkeys/remove", {"id": added["id"]})
    assert status == 409 and body["code"] == "last_passkey"
    other = Browser.at(browser.url)
    try:
        assert (await other.signin(browser.passkeys[0]))[1]["code"] == "bad_credential"  # removed
        assert (await other.signin(phone))[0] == 200
    finally:
        await other.close()


async def test_passkey_calls_need_a_session(browser: Browser) -> None:
    for path in ("/api/account/passkeys/options", "/api/account/passkeys/remove", "/api/account/signout-all"):
        status, body, _ = await browser.post(path, {"id": "x"})
        assert status == 401 and body["code"] == "not_signed_in"


# -- recovery ------------------------------------------------------------------------------------------------
async def test_a_recovery_code_adds_a_new_passkey_once(browser: Browser, other: Browser) -> None:
    codes = (await browser.signup("Distrait"))["recovery_codes"]
    status, body, _ = await other.post(
        "/api/account/recover/options", {"nickname": "distrait", "code": "abcd-efgh-jkmn"}
    )
    assert status == 401 and body["code"] == "bad_recovery"
    status, options, _ = await other.post(
        "/api/account/recover/options", {"nickname": "DISTRAIT", "code": codes[3]}
    )
    assert status == 200, options
    fresh = Passkey(other.rp_id)
    status, answer, _ = await other.post(
        "/api/account/recover",
        {"ceremony": options["ceremony"], "credential": fresh.create(options["publicKey"], other.origin)},
    )
    assert status == 200 and answer["account"]["nickname"] == "Distrait"
    me = (await other.me())[1]
    assert len(me["passkeys"]) == 2 and me["recovery_codes_left"] == 7
    status, body, _ = await other.post(
        "/api/account/recover/options", {"nickname": "Distrait", "code": codes[3]}
    )
    assert status == 401 and body["code"] == "bad_recovery"


async def test_recovery_runs_the_same_work_whether_the_nickname_exists_or_not(
    browser: Browser, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Timing must not tell whether a nickname exists: the slow hash runs for unknown nicknames too.
    await browser.signup("Existe")
    calls: list[str] = []
    real = service._hash_code
    monkeypatch.setattr(service, "_hash_code", lambda salt, code: calls.append(code) or real(salt, code))
    for nickname in ("Existe", "Personne"):
        status, body, _ = await browser.post(
            "/api/account/recover/options", {"nickname": nickname, "code": "x"}
        )
        assert status == 401 and body["code"] == "bad_recovery"
    assert len(calls) == 2


# -- guest seats ---------------------------------------------------------------------------------------------
async def test_signing_up_claims_the_guest_seats_whose_tokens_the_browser_holds(
    site: RunningRelay, browser: Browser, other: Browser
) -> None:
    table_id = await create_table(browser.session, site)
    guest = await Player.connect(browser.session, site, table_id)
    await guest.join("Invité")
    rival = await Player.connect(other.session, site, table_id)
    await rival.join("Rival")
    assert guest.token is not None and rival.token is not None
    seats = [
        {"table": table_id, "token": guest.token},
        {"table": table_id, "token": "not-a-token"},
        {"table": "no-such-table", "token": guest.token},
    ]
    answer = await browser.signup("Ancien", seats=seats)
    assert answer["claimed"] == [{"table": table_id, "seat": guest.seat}]
    # A seat is claimed by proving its token only, and stays with the first account that did.
    second = Browser.at(site.url)
    try:
        answer = await second.signup("Voleur", seats=[{"table": table_id, "token": guest.token}])
        assert answer["claimed"] == []
        status, body, _ = await second.post(
            "/api/account/claim", {"seats": [{"table": table_id, "token": rival.token}]}
        )
        assert status == 200 and body["claimed"] == [{"table": table_id, "seat": rival.seat}]
    finally:
        await second.close()
        await guest.close()
        await rival.close()


# -- at the table --------------------------------------------------------------------------------------------
async def test_a_signed_in_player_sits_under_their_nickname_as_an_account_and_the_seat_is_theirs(
    site: RunningRelay, browser: Browser
) -> None:
    await browser.signup("Éloïse")
    table_id = await create_table(browser.session, site)
    member = await Player.connect(browser.session, site, table_id)  # the upgrade carries the cookie
    await member.join("whatever is typed")
    snap = next(f for f in member.frames if f["type"] == "snapshot")
    [seat] = snap["view"]["seats"]
    assert seat["name"] == "Éloïse" and seat["account"] is True
    accounts = site.app[service_key()]
    account = accounts.store.by_nickname(fold("eloise"))
    assert account is not None
    # Claimed right after the seat is taken (with PostgreSQL, in a worker thread): soon after the welcome.
    await wait_until(lambda: accounts.store.seats(account.id) == [(table_id, 0)])
    await member.close()


async def test_a_guest_may_not_take_a_registered_nickname_at_a_table(
    site: RunningRelay, browser: Browser, other: Browser
) -> None:
    await browser.signup("Éloïse")
    table_id = await create_table(other.session, site)
    guest = await Player.connect(other.session, site, table_id)
    for name in ("eloise", "ÉLOÏSE"):
        answer = await guest.send({"type": "join", "name": name})
        assert answer["type"] == "error" and answer["code"] == "name_registered", answer
    await guest.join("Éloïse 2")  # a guest's name may still look alike; only the nickname itself is kept
    snap = next(f for f in guest.frames if f["type"] == "snapshot")
    assert "account" not in snap["view"]["seats"][0]
    await guest.close()
