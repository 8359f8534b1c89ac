"""A newcomer's way to a seat on CPython (issue 11): own tables, the invitation, a refused name fixed in the
same tab, watching, the spectator count, computer players, one h1 per screen."""

from __future__ import annotations

import random
from html.parser import HTMLParser

import pytest
from app import render, screens
from app.i18n import Translator
from app.lobby import Lobby, own_table_ids
from app.state import UiState
from web_helpers import T0, run, snapshot, started

import engine as e

FR, EN = Translator("fr"), Translator("en")


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def tags(html: str) -> list[tuple[str, dict[str, str | None]]]:
    t = Tags()
    t.feed(html)
    return t.tags


def summary(status: str = "waiting", seats: tuple[str, ...] = ("Alice",), turn: int = 120) -> dict:  # type: ignore[type-arg]
    return {
        "id": "t1",
        "status": status,
        "public": True,
        "turn_seconds": turn,
        "created_ms": T0,
        "seats": [
            {"seat": i, "name": n, "bot": "easy" if n.startswith("Robot") else None, "score": 3 * i}
            for i, n in enumerate(seats)
        ],
    }


def invited(status: str = "waiting", seats: tuple[str, ...] = ("Alice",)) -> UiState:
    ui = UiState(rng=random.Random(1))
    ui.enter_table("t1")
    ui.conn = "idle"
    ui.lobby.open_link("t1")
    ui.lobby.got_summary("t1", summary(status, seats))
    return ui


def seated(seat: int | None, state: e.GameState | None = None) -> UiState:
    state = state or started()
    ui = UiState(rng=random.Random(1))
    ui.enter_table("t1")
    token = None if seat is None else "tok"
    ui.on_frame(
        {"type": "welcome", "protocol": 1, "table": "t1", "seat": seat, "token": token, "now": T0}, T0
    )
    ui.on_frame({**snapshot(state, seat), "watchers": 1}, T0)
    return ui


# -- home ---------------------------------------------------------------------------------------------
def test_own_tables_are_the_seat_tokens_the_browser_keeps_not_its_settings() -> None:
    storage = {"lexio:name": "Alice", "lexio:lang": "fr", "lexio:Zb7": "tok1", "lexio:Aa1": "tok2", "x": "y"}
    assert own_table_ids(storage) == ["Aa1", "Zb7"]


def test_own_tables_waiting_come_first_then_playing_and_finished_ones_are_left_out() -> None:
    lobby = Lobby()
    lobby.set_mine(
        [
            {**summary("playing"), "id": "p"},
            {**summary("ended"), "id": "x"},
            {**summary("waiting"), "id": "w"},
        ]
    )
    assert [t["id"] for t in lobby.mine] == ["w", "p"]


def test_home_lists_own_tables_first_with_resume_and_only_the_button_creates() -> None:
    ui = UiState()
    ui.lobby.set_mine([{**summary("playing", ("Alice", "Robot 1")), "id": "mine1"}])
    ui.tables = [{"id": "open1", "turn_seconds": 120, "free": 3, "seats": [{"seat": 0, "name": "Bob"}]}]
    html = render.home(ui, EN)
    parsed = tags(html)
    form = next(a for t, a in parsed if a.get("id") == "create-form")
    assert "data-act" not in form  # a click anywhere in the card no longer creates a table
    acts = [a.get("data-act") for _, a in parsed if a.get("data-act")]
    assert acts.count("create") == 1
    name = next(a for t, a in parsed if a.get("id") == "name-input")
    assert name["data-enter"] == "create"
    assert html.index("Your tables") < html.index("Your name") < html.index("Open tables")
    resume = next(a for t, a in parsed if a.get("data-act") == "resume")
    assert resume["data-arg"] == "mine1"
    assert "Robot 1 (computer)" in html and "in progress" in html
    # The same turn time as the form's list: "2 min", never "120 s".
    assert "2 min" in render.table_list(ui, EN) and "120 s" not in html


# -- invitation ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("tr", "title", "free"),
    [(FR, "Alice vous invite", "3 places libres"), (EN, "Alice invites you", "3 free seats")],
)
def test_an_invitation_names_the_host_the_seated_the_free_seats_and_the_turn_time(
    tr: Translator, title: str, free: str
) -> None:
    ui = invited(seats=("Alice", "Robot 1"))
    ui.lobby.got_summary("t1", summary(seats=("Alice",)))
    assert ui.screen == "invite"
    html = render.invite(ui, tr)
    assert f">{title}</h1>" in html and free in html and "2 min" in html
    parsed = tags(html)
    assert [a.get("id") for t, a in parsed if t == "h1"] == ["invite-title"]
    assert next(a for t, a in parsed if a.get("id") == "name-input")["data-enter"] == "invite-join"
    assert any(a.get("id") == "join-table" for _, a in parsed)


def test_a_started_game_offers_watch_without_a_name_and_an_unknown_link_says_so() -> None:
    ui = invited("playing", ("Alice", "Bob"))
    html = render.invite(ui, FR)
    assert "Regarder" in html and 'id="name-input"' not in html and "Partie en cours" in html
    assert render.invite(invited("playing"), EN).count('data-act="watch"') == 1
    ui.lobby.watching = True
    assert ui.join_frame() == {"type": "watch", "id": "w0"}
    gone = UiState()
    gone.enter_table("t9")
    gone.lobby.open_link("t9")
    gone.lobby.got_summary("t9", None)
    assert gone.lobby.invite_status == "missing" and "Table not found" in render.invite(gone, EN)


def test_a_summary_for_another_table_than_the_one_on_screen_is_ignored() -> None:
    ui = invited()
    ui.lobby.got_summary("other", summary("playing"))
    assert ui.lobby.invite_status == "waiting"


def test_a_taken_name_is_said_next_to_the_field_and_the_same_tab_joins_with_another() -> None:
    ui = invited()
    ui.name = "alice"
    ui.lobby.joining = True
    assert ui.join_frame() == {"type": "join", "id": "j0", "name": "alice"}
    refusal = {"code": "bad_name", "message": "", "params": {"name": "alice", "reason": "taken"}}
    ui.on_frame({"type": "error", "id": "j0", **refusal, "now": T0}, T0)
    assert ui.screen == "invite" and ui.conn == "idle" and not ui.lobby.joining
    assert ui.notice is None and ui.error is None
    err = screens.name_error(ui, EN)
    assert "alice is already taken" in err
    html = render.invite(ui, EN)
    assert 'aria-invalid="true"' in html and err in html
    # Another name: a normal join again (the glue opens a fresh socket).
    ui.name, ui.lobby.join_error = "Bob", None
    assert screens.name_error(ui, EN) == ""
    assert ui.join_frame() == {"type": "join", "id": "j0", "name": "Bob"}
    state = started()
    ui.on_frame({"type": "welcome", "protocol": 1, "table": "t1", "seat": 1, "token": "tok", "now": T0}, T0)
    ui.on_frame(snapshot(state, 1), T0)
    assert ui.screen == "table"


@pytest.mark.parametrize("name", ["Robot", "Robot 1", "robot fort"])
def test_a_person_cannot_take_a_computer_players_name_and_is_told_while_typing(name: str) -> None:
    ui = invited()
    ui.name = name
    assert ui.name_problem() == "name_reserved"
    assert "computer players" in screens.name_error(ui, EN)
    assert "ordinateur" in FR.error("bad_name", {"reason": "reserved"})


def test_a_game_started_meanwhile_turns_the_join_into_watching() -> None:
    ui = invited()
    ui.name = "Bob"
    ui.on_frame({"type": "error", "id": "j0", "code": "already_started", "message": "", "now": T0}, T0)
    assert ui.outbox[-1] == {"type": "watch", "id": "w0"} and ui.lobby.watching and ui.notice is None


# -- watching -----------------------------------------------------------------------------------------
def test_a_watcher_sees_the_board_scores_clock_and_no_rack_reserve_or_controls() -> None:
    ui = seated(None)
    assert ui.screen == "table" and ui.seat is None
    rack = render.rack_area(ui, FR)
    assert 'id="rack"' not in rack and "btn-" not in rack and "Vous regardez la partie" in rack
    status = render.status(ui, EN, T0)
    assert 'data-testid="reserve"' not in status and 'id="countdown"' in status
    assert "1 watching" in status
    assert 'data-testid="player-score"' in render.players(ui, EN)
    assert render.preview(ui, EN) == ""  # nothing to preview: the region is hidden
    assert "kbd-help" not in render.board(ui, EN)


def test_seated_players_are_told_how_many_watch() -> None:
    ui = seated(0)
    assert "1 spectateur" in render.status(ui, FR, T0) and 'data-testid="reserve"' in render.status(
        ui, FR, T0
    )
    ui.on_frame({"type": "watchers", "count": 3, "now": T0}, T0)
    assert ui.watchers == 3 and "3 spectateurs" in render.status(ui, FR, T0)
    ui.on_frame({"type": "watchers", "count": 0, "now": T0}, T0)
    assert 'data-testid="watchers"' not in render.status(ui, FR, T0)


# -- computer players ---------------------------------------------------------------------------------
def waiting_with_bot() -> e.GameState:
    state = e.new_state()
    for cmd in [e.CreateTable(), e.Join("Alice"), e.Join("Bob"), e.Join("Robot 1", bot="easy")]:
        state, _ = run(state, cmd)
    return state


def test_seat_0_may_remove_a_computer_player_and_start_follows_the_seat_list() -> None:
    host = seated(0, waiting_with_bot())
    html = render.waiting(host, EN, "link")
    parsed = tags(html)
    removes = [a for _, a in parsed if a.get("data-act") == "remove-bot"]
    assert [(a["data-arg"], a["aria-label"]) for a in removes] == [("2", "Remove Robot 1")]
    focusable = [a.get("id") or a.get("data-act") for t, a in parsed if t in ("button", "input", "select")]
    assert focusable.index("start-game") == focusable.index("remove-bot") + 1
    host.send({"type": "remove_bot", "seat": 2})
    assert host.outbox[-1]["type"] == "remove_bot" and host.outbox[-1]["seat"] == 2
    guest = seated(1, waiting_with_bot())
    assert "remove-bot" not in render.waiting(guest, EN, "link")


def test_computer_players_are_marked_in_the_players_panel_and_the_end_screen() -> None:
    state = waiting_with_bot()
    state, _ = run(state, e.Start(0))
    ui = seated(0, state)
    assert "Robot 1 (ordinateur)" in render.players(ui, FR)
    for _ in range(6):
        state, _ = run(state, e.Play(state.turn, e.Pass()))  # type: ignore[arg-type]
    assert state.status == "ended"
    ui = seated(0, state)
    assert "Robot 1 (computer)" in render.end(ui, EN, "gcg")


# -- one h1 per screen --------------------------------------------------------------------------------
def test_every_screen_has_exactly_one_h1_that_can_take_the_focus() -> None:
    screens_html = {
        "home": render.home(UiState(), FR),
        "invite": render.invite(invited(), FR),
        "waiting": render.waiting(seated(0, waiting_with_bot()), FR, "l"),
        "table": render.table_skeleton(FR),
    }
    for name, html in screens_html.items():
        h1s = [a for t, a in tags(html) if t == "h1"]
        assert len(h1s) == 1, name
        assert h1s[0]["tabindex"] == "-1" and "data-screen-title" in h1s[0], name


def test_the_scrolling_journal_can_be_reached_by_keyboard() -> None:
    # The journal is the score sheet (issue 12): its scrolling region takes the focus.
    region = next(a for t, a in tags(render.journal(seated(0), EN)) if a.get("data-testid") == "sheet-region")
    assert region["tabindex"] == "0" and region["aria-label"]


# -- help ---------------------------------------------------------------------------------------------
def test_every_screen_links_the_rules_in_the_page_language() -> None:
    for tr in (FR, EN):
        link = next(a for t, a in tags(render.shell_header(UiState(), tr)) if a.get("id") == "rules-link")
        assert link["href"] == f"rules.{tr.lang}.html" and link["target"] == "_blank"
    assert ">Règles<" in render.shell_header(UiState(), FR) and ">Rules<" in render.shell_header(
        UiState(), EN
    )


def test_the_rules_page_holds_the_whole_rules_text_in_its_language() -> None:
    from pathlib import Path

    from app.rules_page import rules_page

    docs = Path(__file__).resolve().parents[2] / "docs"
    for lang, title in (("fr", "Règles de Lexio"), ("en", "Rules of Lexio")):
        text = (docs / f"rules.{lang}.txt").read_text(encoding="utf-8")
        page = rules_page(lang, text)
        assert f'<html lang="{lang}">' in page and f"<h1>{title}</h1>" in page
        lines = [x for x in text.splitlines() if x.strip()]
        assert page.count("<p>") == len(lines) + 1  # every paragraph, and the link to the other language
    assert "&lt;b&gt;" in rules_page("en", "<b>")


def test_the_help_drawer_explains_the_reserve_of_refusals_and_the_previews_promise() -> None:
    html = render.table_skeleton(FR)
    assert 'id="d-help"' in html and 'id="kbd-help"' in html
    assert "Réserve de refus" in html and "15 s" in html and "ne promet pas" in html
    en = render.table_skeleton(EN)
    assert "Reserve of refusals" in en and "does not promise" in en and 'href="rules.en.html"' in en


def test_a_missing_name_is_said_next_to_the_field_not_in_the_banner() -> None:
    ui = UiState()
    ui.notice = ("name_required", {"n": 0})
    assert render.banner(ui, EN, T0) == ""
    assert "Choose a name" in screens.name_error(ui, EN)
    ui.notice = ("copied", {})
    assert "Link copied" in render.banner(ui, EN, T0)


def test_an_own_table_is_not_listed_twice() -> None:
    ui = UiState()
    ui.tables = [{"id": "mine1", "turn_seconds": 60, "free": 3, "seats": []}]
    assert 'data-arg="mine1"' in render.table_list(ui, EN)
    ui.lobby.set_mine([{**summary("waiting"), "id": "mine1"}])
    assert 'data-arg="mine1"' not in render.table_list(ui, EN)


def test_the_journal_names_a_removed_computer_player_and_renumbered_seats_as_they_were() -> None:
    state = waiting_with_bot()  # Alice, Bob, Robot 1
    state, _ = run(state, e.Leave(2))  # seat 0 removed the computer player
    state, _ = run(state, e.Leave(0))  # then Alice left: Bob is seat 0 now
    state, _ = run(state, e.Join("Carol"))
    # Each event's line names the seat as it was then (render.journal_line with names_at_each_event).
    events = state.events
    view = e.view(state, 0, now_ms=0)
    names = {int(x["seat"]): str(x["name"]) for x in view["seats"]}
    then = render.names_at_each_event(view["journal"], names)
    lines = [render.journal_line(ev, t, EN, 0) for ev, t in zip(view["journal"], then, strict=True)]
    assert len(lines) == len(events)
    assert "Robot 1 leaves" in lines and "Alice leaves" in lines
    assert not any(x.startswith("? ") for x in lines)
    # The score sheet (issue 12) lists turns only: seating is not a row, and its columns are today's seats.
    sheet = render.journal(seated(0, state), EN)
    assert "leaves" not in sheet and "Bob: 0" in sheet and "Carol: 0" in sheet


def test_a_link_typed_in_join_by_link_survives_a_re_render_of_the_home_screen() -> None:
    ui = UiState()
    ui.lobby.link = "http://x/t/abc"
    link = next(a for t, a in tags(render.home(ui, EN)) if a.get("id") == "link-input")
    assert link["value"] == "http://x/t/abc" and link["data-bind"] == "link"
