"""The browser glue (app.glue) on CPython: a Client on fake doors (tests/web/fake_browser.py) driven by the
page's events and the relay's frames, as the browser drives it."""

from __future__ import annotations

import html
import re

import pytest
from app.chat import REGIONS as CHAT_REGIONS
from app.glue.client import Client
from fake_browser import ORIGIN, FakeBrowser, client_at, ui
from web_helpers import snapshot, started

import engine as e
from engine.variants import BLANK, get_variant

TOKEN = "tok-1"


def seated(state: e.GameState, seat: int) -> tuple[Client, FakeBrowser]:
    """A client back at table ``abc`` with its seat token, joined and sent the table's snapshot."""
    client, browser = client_at("/t/abc", {"lexio:abc": TOKEN, "lexio:name": f"P{seat}"})
    client.begin()
    browser.socket.opened()
    browser.socket.receive({"type": "welcome", "id": "j0", "table": "abc", "seat": seat, "token": TOKEN})
    browser.socket.receive(snapshot(state, seat))
    return client, browser


def test_a_table_link_with_a_seat_token_opens_the_socket_and_rejoins_with_the_token() -> None:
    client, browser = client_at("/t/abc", {"lexio:abc": TOKEN})
    client.begin()
    assert browser.socket.url == "ws://lexio.test/ws/abc"
    assert browser.regions["banner"] == ""  # connecting: said in the header, not in a banner
    assert client.page.patch["ready"] == 1  # sent by the page's start with the boot timings
    browser.socket.opened()
    assert browser.socket.sent == [{"type": "join", "id": "j0", "token": TOKEN}]


def test_a_snapshot_frame_renders_the_board_the_rack_and_the_players() -> None:
    state = started()
    _client, browser = seated(state, 0)
    assert 'id="board"' in browser.regions["t-board"]
    for sq in ("G7", "A1"):
        assert f'id="sq-{sq}"' in browser.regions["t-board"]
    assert browser.regions["t-rack"].count('data-testid="rack-tile"') == len(state.seats[0].rack)
    assert browser.regions["t-players"].count('data-testid="player"') == 2
    assert browser.storage_writes["lexio:abc"] == TOKEN  # the welcome's token is kept for the next visit


def test_placing_a_rack_tile_on_the_source_and_submitting_sends_a_place_frame() -> None:
    state = started()
    seat = state.turn
    assert seat is not None
    client, browser = seated(state, seat)
    rack = state.seats[seat].rack
    index = next(i for i, ch in enumerate(rack) if ch != BLANK)
    source = get_variant("lexio").source
    ui(client, t="click", act=None, rack=str(index))
    ui(client, t="click", act=None, sq=source)
    # The square is redrawn alone, with the pending tile; the preview says what it would score.
    assert "has-pending" in browser.squares[source]
    assert 'data-testid="preview-' in browser.regions["t-preview"]
    ui(client, t="click", act="submit")
    frame = browser.socket.sent[-1]
    assert frame["type"] == "place"
    assert frame["tiles"] == [{"sq": source, "letter": rack[index], "blank": False}]
    assert isinstance(frame["id"], str)


def test_each_patch_answering_a_ui_event_carries_its_time_stamp() -> None:
    client, browser = seated(started(), 0)
    ui(client, t="click", act="shuffle")
    assert browser.last_patch["ts"] == 1.5
    assert set(browser.last_patch["r"]) == {"rack"}  # the shuffled tiles alone (#rack's inner HTML)


def test_a_dropped_socket_says_offline_then_reconnects_and_rejoins_with_the_token() -> None:
    _client, browser = seated(started(), 0)
    first = browser.socket
    first.dropped(1006)
    assert 'data-testid="offline-banner"' in browser.regions["banner"]
    assert len(browser.timers) == 1 and len(browser.sockets) == 1  # not at once: after a backoff delay
    browser.run_timers()
    assert len(browser.sockets) == 2
    browser.socket.opened()
    assert browser.socket.sent == [{"type": "join", "id": "j0", "token": TOKEN}]


def test_the_offline_banner_counts_down_in_whole_seconds_after_a_relay_restart() -> None:
    # 1012 waits a random 1 to 3 s: the banner said "2.0 s" (a float delay) where it means "2 s".
    for _ in range(20):
        _client, browser = seated(started(), 0)
        browser.socket.dropped(1012)
        banner = browser.regions["banner"]
        assert re.search(r"\b[1-3] s", banner) and not re.search(r"\d\.\d", banner), banner


def test_a_seat_taken_over_in_another_tab_stops_reconnecting() -> None:
    client, browser = seated(started(), 0)
    browser.socket.dropped(4001)
    assert browser.timers == []
    assert client.state.conn == "stopped"
    assert 'data-testid="offline-banner"' in browser.regions["banner"]


def test_a_socket_left_behind_is_not_heard_any_more() -> None:
    client, browser = seated(started(), 0)
    old = browser.socket
    ui(client, t="click", act="home")
    assert old.closed_with == 1000
    posted = len(browser.patches)
    old.receive({"type": "presence", "seats": []})
    old.dropped(1006)
    assert len(browser.patches) == posted and browser.timers == []
    browser.settle()  # the home page's lists: the relay cannot be reached, the page stays usable
    assert client.state.screen == "home"


def test_the_home_page_lists_the_open_tables_the_relay_serves() -> None:
    client, browser = client_at("/")
    seats = [{"seat": 0, "name": "Alice", "bot": None, "connected": True}]
    browser.answer("GET", "/api/tables", 200, {"tables": [{"id": "t9", "seats": seats, "free": 3}]})
    client.begin()
    assert "lexio:lang" not in browser.storage_writes and browser.patches[0]["lang"] == "fr"
    browser.settle()
    assert 'data-testid="open-table"' in browser.regions["main"] and "Alice" in browser.regions["main"]
    assert 'data-act="join" data-arg="t9"' in browser.regions["main"]


def test_the_home_page_says_when_the_relay_cannot_be_reached_on_creating_a_table() -> None:
    client, browser = client_at("/")
    client.begin()
    ui(client, t="click", act="create", name="Alice")
    browser.settle()
    assert ("POST", ORIGIN + "/api/tables", '{"turn_seconds": 120, "public": true}') in browser.requests
    assert 'data-testid="notice"' in browser.regions["banner"]
    assert browser.storage_writes["lexio:name"] == "Alice"


def test_a_new_table_is_joined_by_name_once_the_relay_made_it() -> None:
    client, browser = client_at("/")
    browser.answer("POST", "/api/tables", 201, {"id": "n1"})
    browser.answer("GET", "/api/tables/n1", 200, {"id": "n1", "status": "empty", "seats": []})
    client.begin()
    ui(client, t="click", act="create", name="Alice")
    browser.settle()
    assert client.session.addr.path == "/t/n1"
    assert any(p.get("push") == "/t/n1" for p in browser.patches)
    browser.socket.opened()
    assert browser.socket.sent == [{"type": "join", "id": "j0", "name": "Alice"}]


def test_typing_a_name_says_what_is_wrong_next_to_the_field_without_redrawing_the_screen() -> None:
    client, browser = client_at("/")
    client.begin()
    ui(client, t="bind", bind="name", value="x" * 30, type="input")
    patch = browser.last_patch
    assert set(patch["r"]) == {"name-error"} and 'data-code="name_too_long"' in patch["r"]["name-error"]
    assert patch["a"] == [["name-input", "aria-invalid", "true"]]


def test_switching_the_language_renders_in_english_and_keeps_the_choice() -> None:
    client, browser = client_at("/")
    client.begin()
    ui(client, t="click", act="lang", arg="en")
    assert browser.last_patch["lang"] == "en"
    assert browser.storage_writes["lexio:lang"] == "en"
    assert "Create a table" in browser.regions["main"]


def test_a_chat_message_redraws_the_chat_alone() -> None:
    _client, browser = seated(started(), 0)
    message = {"id": 1, "channel": "seats", "seat": 1, "name": "P1", "text": "Bien joué"}
    browser.socket.receive({"type": "chat", "message": message})
    assert set(browser.last_patch["r"]) <= set(CHAT_REGIONS)
    assert "Bien joué" in browser.regions["t-chat-log"]


def test_the_clock_ticks_the_countdown_down() -> None:
    client, browser = seated(started(), 0)
    before = browser.regions["t-status"]
    browser.now += 61_000
    client.tick()
    assert browser.regions["t-status"] != before
    assert "0:59" in browser.regions["t-status"]


@pytest.mark.parametrize(("status", "code"), [(404, "replay_no_table"), (409, "replay_not_finished")])
def test_the_replay_of_a_table_without_a_record_says_why(status: int, code: str) -> None:
    client, browser = client_at("/t/abc/replay")
    browser.answer("GET", "/api/tables/abc/gcg", status, {"code": "x"})
    client.begin()
    assert 'data-testid="replay"' in browser.regions["main"]
    browser.settle()
    assert 'data-testid="replay-error"' in browser.regions["replay-msg"]
    assert html.escape(client.session.tr.t(code)) in browser.regions["replay-msg"]


def test_going_back_in_the_browser_follows_the_address() -> None:
    client, browser = seated(started(), 0)
    ui(client, t="nav", href=f"{ORIGIN}/")
    assert client.state.screen == "home"
    assert browser.socket.closed_with == 1000
    browser.settle()


def test_timed_actions_leave_their_marks_for_a_browser_trace() -> None:
    client, browser = client_at("/t/abc", {"lexio:abc": TOKEN}, mark_actions=True)
    client.begin()
    browser.socket.opened()
    browser.socket.receive(snapshot(started(), 0))
    browser.marks.clear()
    ui(client, t="click", act=None, rack="0")
    assert browser.marks == ["lexio-action", "lexio-handover"]
    assert browser.last_patch["perf"][1] is None  # no placement changed: no engine time
