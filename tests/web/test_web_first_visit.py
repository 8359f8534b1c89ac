"""What a newcomer meets (issue 27): what Lexio is and a computer game one click from home, the games in
progress to watch, a table link's first screen, an invitation kept true and watchable before the start, a
watcher's page without a player's own help, and endings by passes counted and explained."""

from __future__ import annotations

from typing import Any

from app import render, screens
from app.ending import end_reason, scoreless_left, scoreless_line
from app.glue.client import INVITE_POLL_S
from app.home_more import LiveGame, live_games
from app.i18n import Translator
from app.state import UiState
from fake_browser import client_at, ui
from web_helpers import T0, run, snapshot, started

import engine as e

FR, EN = Translator("fr"), Translator("en")


def event_frame(state: e.GameState, ev: Any, seat: int | None) -> dict[str, Any]:
    return {
        "type": "event",
        "seq": state.version,
        "now": T0,
        "event": e.redact_event(ev, seat),
        "clock": {"turn": state.turn, "deadline_ms": None, "grace_deadline_ms": None},
    }


# -- home -------------------------------------------------------------------------------------------------
def test_home_says_what_lexio_is_and_offers_the_computer_with_its_five_levels() -> None:
    state = UiState(lang="fr")
    html = screens.home(state, FR)
    assert 'data-testid="pitch"' in html and "mots croisés" in html
    assert 'id="play-computer"' in html and "Jouer contre l&#x27;ordinateur" in html
    for level in ("beginner", "easy", "medium", "strong", "expert"):
        assert f'<option value="{level}"' in html
    assert '<label for="home-bot-level">' in html


def test_play_against_the_computer_creates_a_private_table_seats_the_level_chosen_and_starts() -> None:
    client, browser = client_at("/")
    browser.answer("POST", "/api/tables", 201, {"id": "n1"})
    browser.answer("GET", "/api/tables/n1", 200, {"id": "n1", "status": "empty", "seats": []})
    client.begin()
    ui(client, t="bind", bind="bot_level", value="expert", type="change")
    ui(client, t="click", act="play-computer", name="Alice")
    browser.settle()
    assert (
        "POST",
        "http://lexio.test/api/tables",
        '{"turn_seconds": 120, "public": false}',
    ) in browser.requests
    sock = browser.socket
    sock.opened()
    sock.receive({"type": "welcome", "id": "j0", "table": "n1", "seat": 0, "token": "t"})
    state = e.new_state()
    for cmd in (e.CreateTable(), e.Join("Alice")):
        state, _ = run(state, cmd)
    sock.receive(snapshot(state, 0))
    add = [f for f in sock.sent if f["type"] == "add_bot"]
    assert [f["level"] for f in add] == ["expert"]
    state, (joined,) = run(state, e.Join("Robot 1", bot="expert"))
    sock.receive(event_frame(state, joined, 0))
    sock.receive({"type": "ack", "id": add[0]["id"], "seq": state.version, "now": T0})
    sock.receive(snapshot(state, 0))  # a seat joined: the page asked for a fresh snapshot
    assert [f["type"] for f in sock.sent if f["type"] in ("add_bot", "start")] == ["add_bot", "start"]
    # Nothing more once started, whatever comes next.
    state, events = run(state, e.Start(0))
    sock.receive(event_frame(state, events[0], 0))
    assert [f["type"] for f in sock.sent if f["type"] in ("add_bot", "start")] == ["add_bot", "start"]


def test_a_plain_new_table_gets_no_computer_player() -> None:
    client, browser = client_at("/")
    browser.answer("POST", "/api/tables", 201, {"id": "n1"})
    browser.answer("GET", "/api/tables/n1", 200, {"id": "n1", "status": "empty", "seats": []})
    client.begin()
    ui(client, t="click", act="create", name="Alice")
    browser.settle()
    browser.socket.opened()
    browser.socket.receive({"type": "welcome", "id": "j0", "table": "n1", "seat": 0, "token": "t"})
    state = e.new_state()
    for cmd in (e.CreateTable(), e.Join("Alice")):
        state, _ = run(state, cmd)
    browser.socket.receive(snapshot(state, 0))
    assert not [f for f in browser.socket.sent if f["type"] in ("add_bot", "start")]


# -- games in progress to watch ---------------------------------------------------------------------------
def live(gid: str, watchers: int | None, move: int, *seats: tuple[str, str | None, int]) -> LiveGame:
    return {
        "id": gid,
        "variant": "lexio",
        "turn_seconds": 120,
        "turn": 0,
        "move": move,
        "watchers": watchers,
        "seats": [{"seat": i, "name": n, "bot": b, "score": s} for i, (n, b, s) in enumerate(seats)],
    }


def test_live_games_show_the_top_game_then_the_others_with_players_scores_move_watchers_and_watch() -> None:
    games = [
        live("g1", 3, 14, ("Alice", None, 121), ("Robot 1", "expert", 140)),
        live("g2", None, 2, ("Bob", None, 8), ("Chloé", None, 0)),
    ]
    html = live_games(games, EN)
    top, rest = html.split('data-testid="top-game"')[1].split("<ul", 1)
    assert "Top game" in top and "Alice" in top and ">121<" in top and ">140<" in top
    assert "move 14" in top and "3 watching" in top and "(computer)" in top
    assert 'href="t/g1" data-act="watch-game" data-arg="g1"' in top
    assert 'aria-label="Watch the game of Alice, Robot 1">Watch</a>' in top
    assert 'data-testid="live-game"' in rest and "Bob" in rest and "move 2" in rest and "watching" not in rest
    assert "No public game in progress." in live_games([], EN)


def test_the_home_page_lists_the_games_in_progress_the_relay_serves_and_watch_opens_one_as_a_spectator() -> (
    None
):
    client, browser = client_at("/")
    game = live("g1", 0, 5, ("Alice", None, 30), ("Bob", None, 12))
    browser.answer("GET", "/api/tables", 200, {"tables": [], "live": [game]})
    browser.answer("GET", "/api/tables/g1", 200, {"id": "g1", "status": "playing", "seats": game["seats"]})
    client.begin()
    browser.settle()
    assert 'data-testid="top-game"' in browser.regions["main"] and "Alice" in browser.regions["main"]
    ui(client, t="click", act="watch-game", arg="g1")
    assert client.session.addr.path == "/t/g1"
    browser.socket.opened()
    assert browser.socket.sent == [{"type": "watch", "id": "w0"}]


# -- a table link -----------------------------------------------------------------------------------------
def test_a_table_link_while_python_loads_says_the_table_is_opening_not_game_in_progress() -> None:
    for tr in (FR, EN):
        shell = render.shell_body(UiState(lang=tr.lang), tr).split('<div class="shell-table">')[1]
        assert tr.t("opening_table") in shell and tr.t("table_title") not in shell
        assert 'id="board"' not in shell and shell.count("<h1") == 1
    # Python's first screen for a newcomer says the same until the table's facts come.
    state = UiState(lang="fr")
    state.enter_table("abc")
    state.lobby.open_link("abc")
    assert FR.t("opening_table") in screens.invite(state, FR)


def waiting_invite(free: int = 3) -> UiState:
    state = UiState(lang="en")
    state.enter_table("abc")
    state.lobby.open_link("abc")
    seats = [{"seat": i, "name": f"P{i}", "bot": None} for i in range(4 - free)]
    state.lobby.got_summary("abc", {"id": "abc", "status": "waiting", "turn_seconds": 120, "seats": seats})
    return state


def test_an_invitation_before_the_start_offers_watch_as_well_as_join() -> None:
    html = screens.invite(waiting_invite(), EN)
    assert 'id="join-table"' in html and 'id="watch-table"' in html and 'data-act="watch"' in html


def test_an_invitation_on_screen_follows_the_table_and_offers_watch_once_the_host_starts() -> None:
    client, browser = client_at("/t/abc", {"lexio:name": "Zoé"})
    seats = [{"seat": 0, "name": "Alice", "bot": None}, {"seat": 1, "name": "Bob", "bot": None}]
    browser.answer("GET", "/api/tables/abc", 200, {"id": "abc", "status": "waiting", "seats": seats})
    client.begin()
    browser.settle()
    assert "2 free seats" in browser.regions["main"] or "2 places libres" in browser.regions["main"]
    browser.answer("GET", "/api/tables/abc", 200, {"id": "abc", "status": "playing", "seats": seats})
    client.invite_polled -= INVITE_POLL_S
    client.tick()
    browser.settle()
    main = browser.regions["main"]
    assert "places libres" not in main and 'id="watch-table"' in main and 'id="join-table"' not in main


# -- watching ---------------------------------------------------------------------------------------------
def test_a_watchers_table_has_no_reserve_of_refusals_in_its_help_or_status() -> None:
    state = started()
    ui_state = UiState(lang="en")
    ui_state.enter_table("t1")
    ui_state.on_frame(snapshot(state, None), T0)
    assert 'data-testid="help-reserve"' not in render.table_skeleton(EN, watcher=True)
    assert 'data-testid="help-reserve"' in render.table_skeleton(EN)
    assert 'data-testid="reserve"' not in render.status(ui_state, EN, T0)


def test_a_watchers_page_is_drawn_without_the_reserve_help_a_players_with_it() -> None:
    state = started()
    for seat, shown in ((None, False), (0, True)):
        client, browser = client_at("/t/abc", {"lexio:abc": "tok"} if seat is not None else {})
        client.begin()
        if seat is None:
            client.nav.watch()
        browser.socket.opened()
        browser.socket.receive({"type": "welcome", "table": "abc", "seat": seat, "token": None})
        browser.socket.receive(snapshot(state, seat))
        assert ('data-testid="help-reserve"' in browser.regions["main"]) is shown


# -- endings by passes ------------------------------------------------------------------------------------
def passes(state: e.GameState, n: int) -> e.GameState:
    for _ in range(n):
        state, _ = run(state, e.Play(state.turn or 0, e.Pass()))
    return state


def test_the_turns_without_a_placement_left_show_once_the_passes_start_and_count_down_to_the_end() -> None:
    state = started(players=2)
    assert scoreless_left(e.view(state, 0, now_ms=T0)) is None  # bag full, nobody passed: nothing to say
    assert e.scoreless_limit(2) == 4 and e.scoreless_limit(3) == 6
    seen = []
    for _ in range(3):
        state = passes(state, 1)
        seen.append(scoreless_left(e.view(state, 0, now_ms=T0)))
    assert seen == [3, 2, 1]
    line = scoreless_line(e.view(state, 0, now_ms=T0), FR)
    assert 'data-testid="scoreless-left"' in line
    assert "Encore 1 tour sans pose et la partie s&#x27;arrête" in line
    assert "1 more turn without a placement end" in scoreless_line(e.view(state, 0, now_ms=T0), EN)
    state = passes(state, 1)
    assert state.status == "ended" and scoreless_left(e.view(state, 0, now_ms=T0)) is None


def test_with_the_bag_empty_the_count_shows_before_any_pass() -> None:
    view: Any = {"status": "playing", "bag_size": 0, "scoreless_turns": 0, "seats": [{}, {}, {}]}
    assert scoreless_left(view) == 6


def test_the_end_screen_says_in_plain_words_why_the_game_ended() -> None:
    state = passes(started(players=2), 4)
    view = e.view(state, 0, now_ms=T0)
    assert "deux tours de table" in end_reason(view, FR) and "4 tours de suite" in end_reason(view, FR)
    assert "two rounds of the table" in end_reason(view, EN)
    ui_state = UiState(lang="en")
    ui_state.enter_table("t1")
    ui_state.on_frame(snapshot(state, 0), T0)
    assert 'data-testid="end-reason"' in render.end(ui_state, EN, "x.gcg")
    out: Any = {
        "seats": [{"seat": 0, "name": "Alice"}, {"seat": 1, "name": "Bob"}],
        "result": {"reason": "out", "racks": ["EA", ""]},
    }
    assert end_reason(out, EN).startswith("Bob played their last tile with the bag empty")
