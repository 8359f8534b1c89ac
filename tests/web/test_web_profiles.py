"""Issue 29, point 4, on CPython: a player's profile (``/u/{nickname}``, ``?vs=``) and home's "my games", with
a Client on fake doors (tests/web/fake_browser.py) whose relay answers the profile API (docs/protocol.md,
"Profiles and history")."""

from __future__ import annotations

import html
import re

from app.glue.client import Client
from app.glue.session import Address
from fake_browser import FakeBrowser, client_at, ui

T = 1764000000000  # 2025-11-24
BOB = {"seat": 1, "name": "Bob", "bot": None, "score": -12, "nickname": "Bob"}
GAME = {
    "table": "t1",
    "ended_ms": T + 86_400_000,
    "seat": 0,
    "score": 1234,
    "result": "win",
    "players": [
        {"seat": 0, "name": "Alice", "bot": None, "score": 1234, "nickname": "Alice"},
        BOB,
        {"seat": 2, "name": "Robot 1", "bot": "easy", "score": 100, "nickname": None},
        {"seat": 3, "name": "Zoé", "bot": None, "score": 90, "nickname": None},
    ],
    "replay": "/t/t1",
}
STATS = {
    "games": 3,
    "wins": 2,
    "average": 231.5,
    "best_score": 1234,
    "best_play": {"word": "MAISON", "score": 86},
    "bingos": 1,
}
PROFILE = {"nickname": "Alice", "created_ms": T, "stats": STATS, "games": [GAME], "page": 0, "more": True}


def text(browser: FakeBrowser, region: str = "main") -> str:
    """The region's words as shown (tags dropped, spaces collapsed)."""
    raw = re.sub(r"<[^>]+>", " ", browser.regions.get(region, ""))
    return re.sub(r"[ \t\n]+", " ", html.unescape(raw)).strip()  # (a narrow no-break space is kept)


def opened(path: str, *, signed_in: str | None = None) -> tuple[Client, FakeBrowser]:
    client, browser = client_at(path)
    if signed_in:
        me = {"account": {"id": "a1", "nickname": signed_in, "created_ms": 0}, "passkeys": []}
        browser.answer("GET", "/api/account", 200, me)
    else:
        browser.answer("GET", "/api/account", 401, {"code": "not_signed_in", "message": "sign in"})
    browser.answer("GET", "/api/tables", 200, {"tables": [], "live": []})
    browser.answer("GET", "/api/users/Alice", 200, PROFILE)
    return client, browser


def test_a_profile_address_shows_stats_in_french_numbers_and_the_games_with_results_in_words() -> None:
    client, browser = opened("/u/Alice")
    client.begin()
    assert "Profil : Alice" in text(browser)  # said while the relay answers
    browser.settle()
    shown = text(browser)
    assert "Membre depuis le 24 novembre 2025" in shown
    assert "231,5" in shown and "2 (67\u202f%)" in shown and "MAISON 86 points" in shown
    assert "1\u202f234" in shown  # a French thousands' space
    main = browser.regions["main"]
    assert '<th scope="col">Résultat</th>' in main and "<caption" in main
    assert 'data-result="win"' in main and "Victoire" in shown
    # Opponents: a registered player is a link to their profile; a computer player and a guest are said so.
    assert 'href="u/Bob" data-act="open" data-arg="u/Bob"' in main
    assert "Robot 1 (ordinateur)" in shown and "Zoé (invité)" in shown
    assert "Bob ✓ (joueur inscrit) \u221212" in shown  # a true minus sign
    # The game's link opens its table (the end screen and the replay).
    assert 'href="t/t1" data-act="open" data-arg="t/t1" id="game-0"' in main
    assert browser.last_patch.get("focus") == "title" or any(
        p.get("focus") == "title" for p in browser.patches
    )


def test_a_nickname_nobody_has_is_said_as_no_such_player() -> None:
    client, browser = opened("/u/Nobody")
    browser.answer("GET", "/api/users/Nobody", 404, {"code": "no_such_player", "message": "no"})
    client.begin()
    browser.settle()
    assert "Joueur introuvable" in text(browser)
    assert "Aucun joueur inscrit ne s'appelle « Nobody »" in text(browser)
    assert 'data-status="missing"' in browser.regions["main"]


def test_older_games_come_from_the_next_page_and_the_focus_goes_to_the_first_one_added() -> None:
    client, browser = opened("/u/Alice")
    client.begin()
    browser.settle()
    older = {**GAME, "table": "t0", "ended_ms": T}
    browser.answer(
        "GET", "/api/users/Alice?page=1", 200, {**PROFILE, "games": [older], "page": 1, "more": False}
    )
    ui(client, t="click", act="profile-more")
    assert 'id="prof-more" data-act="profile-more" disabled aria-busy="true"' in browser.regions["main"]
    browser.settle()
    main = browser.regions["main"]
    assert main.index('data-table="t1"') < main.index('data-table="t0"')  # newest first
    assert 'id="prof-more"' not in main  # no more pages
    assert browser.last_patch.get("focus") == "game-1"


def test_a_head_to_head_address_asks_the_versus_api_and_says_the_record_in_words() -> None:
    client, browser = opened("/u/Alice?vs=Bob")
    client.session.addr.path, client.session.addr.search = "/u/Alice", "?vs=Bob"
    versus = {"nickname": "Alice", "other": "Bob", "wins": 2, "draws": 0, "losses": 1, "games": [GAME]}
    browser.answer("GET", "/api/users/Alice/versus/Bob", 200, versus)
    client.begin()
    browser.settle()
    assert "Alice contre Bob : 2 victoires, 0 égalité, 1 défaite." in text(browser)
    assert 'data-testid="versus"' in browser.regions["main"]
    assert 'href="u/Alice" data-act="open"' in browser.regions["main"]  # back to all the games


def test_an_app_link_moves_without_reload_and_the_browsers_back_brings_the_profile_again() -> None:
    client, browser = opened("/u/Alice", signed_in="Carol")
    client.begin()
    browser.settle()
    assert 'id="versus-you"' in browser.regions["main"]  # the viewer against this player
    ui(client, t="click", act="open", arg="u/Alice?vs=Carol")
    assert browser.last_patch.get("push") == "/u/Alice?vs=Carol" or any(
        p.get("push") == "/u/Alice?vs=Carol" for p in browser.patches
    )
    assert client.session.profile is not None and client.session.profile.vs == "Carol"
    browser.answer("GET", "/api/users/Alice/versus/Carol", 404, {"code": "no_such_player", "message": "no"})
    browser.settle()
    ui(client, t="nav", href="http://lexio.test/u/Alice")
    assert client.session.profile is not None and client.session.profile.vs is None
    browser.settle()
    assert 'data-testid="compare"' in browser.regions["main"]


def test_the_address_keeps_the_relay_parameter_but_not_a_head_to_heads_vs() -> None:
    addr = Address(origin="http://x", base="/", path="/u/A", search="?relay=http://r&vs=B", relay="http://r")
    assert addr.page("") == "/?relay=http://r"
    assert addr.go("u/A?vs=C") == "/u/A?relay=http://r&vs=C"
    assert (addr.path, addr.search) == ("/u/A", "?relay=http://r&vs=C")


def test_my_games_on_home_lists_live_games_first_with_the_turn_in_words_then_recent_ones() -> None:
    client, browser = opened("/", signed_in="Alice")
    live = [
        {"table": "L1", "seat": 0, "status": "playing", "your_turn": True, "players": [BOB], "link": "/t/L1"},
        {
            "table": "L2",
            "seat": 0,
            "status": "playing",
            "your_turn": False,
            "players": [{"seat": 0, "name": "Alice", "bot": None, "score": 3}, {**BOB, "score": 5}],
            "link": "/t/L2",
        },
    ]
    browser.answer("GET", "/api/account/games", 200, {"live": live, "recent": [GAME], "more": False})
    summary = {"id": "L2", "status": "playing", "turn": 1, "seats": [{"seat": 1, "name": "Bob"}]}
    browser.answer("GET", "/api/tables/L2", 200, summary)
    client.begin()
    browser.settle()
    shown = text(browser)
    assert "Mes parties" in shown
    assert shown.index("En cours") < shown.index("Terminées récemment")
    assert "À vous de jouer" in shown and "Au tour de Bob" in shown
    assert 'aria-label="Jouer : partie avec Bob"' in browser.regions["main"]  # the name says what is shown
    assert "Vous : 1\u202f234 · Victoire" in shown
    assert 'id="my-all"' in browser.regions["main"]


def test_a_guest_gets_no_my_games_and_never_asks_for_them() -> None:
    client, browser = opened("/")
    client.begin()
    browser.settle()
    assert 'data-testid="my-games"' not in browser.regions["main"]
    assert not [u for _, u, _ in browser.requests if u.endswith("/api/account/games")]


def test_a_deleted_opponent_is_said_as_a_deleted_player_without_name_nor_link() -> None:
    gone = {"seat": 1, "name": "Bob", "bot": None, "score": -12, "nickname": None, "deleted": True}
    game = {**GAME, "players": [GAME["players"][0], gone]}  # type: ignore[index]
    client, browser = client_at("/u/Alice")
    browser.answer("GET", "/api/account", 401, {"code": "not_signed_in", "message": "sign in"})
    browser.answer("GET", "/api/tables", 200, {"tables": [], "live": []})
    browser.answer("GET", "/api/users/Alice", 200, {**PROFILE, "games": [game]})
    client.begin()
    browser.settle()
    main = browser.regions["main"]
    assert 'data-testid="deleted-player"' in main and "joueur supprimé" in text(browser)
    assert "Bob" not in text(browser) and "u/Bob" not in main
