"""The UI state machine: placing, keyboard play, dialogs, submissions, server frames (real engine)."""

from __future__ import annotations

import random
import re

import pytest
from app.state import UiState
from hypothesis import given, settings
from hypothesis import strategies as st
from web_helpers import T0, first_word, run, snapshot, started

import engine as e


def ui_for(state: e.GameState, seat: int = 0) -> UiState:
    ui = UiState(rng=random.Random(5))
    ui.enter_table("t1")
    ui.on_frame(
        {"type": "welcome", "protocol": 1, "table": "t1", "seat": seat, "token": "tok", "now": T0}, T0
    )
    ui.on_frame(snapshot(state, seat), T0)
    return ui


def test_screen_follows_the_table_status() -> None:
    ui = UiState()
    assert ui.screen == "home"
    state = e.new_state()
    for cmd in (e.CreateTable(), e.Join("Ann")):
        state, _ = run(state, cmd)
    ui = ui_for(state)
    assert ui.screen == "waiting"
    state, _ = run(state, e.Join("Bob"))
    state, _ = run(state, e.Start(0))
    ui.on_frame(snapshot(state, 0), T0)
    assert ui.screen == "table"


def test_live_preview_is_the_engines_score_of_the_pending_play() -> None:
    state = started()
    ui = ui_for(state)
    move = first_word(state)
    rack = list(ui.rack)
    for tile in move.tiles:
        idx = next(i for i in ui.available() if rack[i] == ("?" if tile.blank else tile.letter))
        if tile.blank:
            ui.place(idx, tile.square)
            assert ui.dialog == "blank"
            assert ui.choose_blank(tile.letter)
        else:
            assert ui.place(idx, tile.square)
    expected = e.analyse(state.board, move.tiles).to_dict()
    assert ui.preview is not None and ui.preview.to_dict() == {"ok": True, "breakdown": expected}


def test_a_misshapen_play_previews_the_shape_problem() -> None:
    ui = ui_for(started())
    ui.place(ui.available()[0], "A3")
    assert ui.preview is not None and ui.preview.ok is False and ui.preview.error is not None
    assert ui.preview.error["code"] in ("missing_source", "no_word")


def test_tiles_cannot_go_on_walls_or_taken_squares() -> None:
    ui = ui_for(started())
    assert not ui.place(ui.available()[0], "A1")  # wall
    assert ui.place(ui.available()[0], "G7")
    assert not ui.place(ui.available()[0], "G7")  # already pending


def test_typing_places_letters_along_the_direction_and_skips_taken_squares() -> None:
    state = started()
    state, _ = run(state, e.Play(0, first_word(state)))
    ui = ui_for(state, seat=1)
    assert ui.my_turn
    occupied = {t["sq"] for t in ui.view["board"]}  # type: ignore[index]
    ui.cursor, ui.across = "E7", True
    letters = [c for c in ui.rack if c != "?"][:2]
    for c in letters:
        assert ui.key(c)
    placed = [p.sq for p in ui.pending]
    assert placed[0] == "E7"
    assert placed[1] not in occupied  # F7.. are taken: the cursor jumped past them
    assert [p.letter for p in ui.pending] == letters


def test_space_toggles_direction_and_arrows_skip_walls() -> None:
    ui = ui_for(started())
    assert ui.key("ArrowUp") and ui.cursor == "G7"  # first arrow: the source
    assert ui.key(" ") and ui.across is False
    ui.cursor = "C1"
    ui.key("ArrowLeft")
    assert ui.cursor == "C1"  # A1/B1 are wall and nothing lies beyond: stays
    ui.cursor = "C3"
    ui.key("ArrowUp")
    assert ui.cursor == "C2"


def test_backspace_takes_back_the_last_tile_and_escape_recalls_all() -> None:
    ui = ui_for(started())
    ui.cursor = "F7"
    for c in [c for c in ui.rack if c != "?"][:3]:
        ui.key(c)
    assert len(ui.pending) == 3
    last = ui.pending[-1].sq
    assert ui.key("Backspace")
    assert len(ui.pending) == 2 and ui.cursor == last
    assert ui.key("Escape")
    assert ui.pending == () and ui.preview is None
    assert sorted(ui.rack[i] for i in ui.available()) == sorted(ui.rack)


def pending_json(ui: UiState) -> list[dict[str, object]]:
    """The pending tiles as the relay's place frame carries them."""
    return [{"sq": p.sq, "letter": p.letter, "blank": p.blank} for p in ui.pending]


def test_typing_a_letter_not_on_the_rack_uses_a_blank_naming_it() -> None:
    state = started()
    # Find a seed whose opening rack holds a blank, so the rule is exercised for real.
    for seed in range(200):
        state = e.new_state()
        for cmd in (e.CreateTable(), e.Join("A"), e.Join("B"), e.Start(0)):
            state, _ = run(state, cmd, seed=seed)
        if "?" in state.seats[0].rack:
            break
    else:
        pytest.skip("no blank in 200 deals")
    ui = ui_for(state)
    missing = next(c for c in "ZYXWKQJ" if c not in ui.rack)
    ui.cursor = "G7"
    assert ui.key(missing)
    assert ui.pending[0].blank and ui.pending[0].letter == missing
    assert pending_json(ui) == [{"sq": "G7", "letter": missing, "blank": True}]


def test_enter_submits_the_pending_play_once_and_only_on_your_turn() -> None:
    state = started()
    ui = ui_for(state, seat=1)
    ui.cursor = "G7"
    ui.key(ui.rack.replace("?", "")[0])
    assert not ui.key("Enter")  # seat 0 is on turn
    ui = ui_for(state, seat=0)
    ui.cursor = "G7"
    ui.key(ui.rack.replace("?", "")[0])
    ui.key(ui.rack.replace("?", "")[1] if len(ui.available()) else "")
    assert ui.key("Enter")
    frames = [f for f in ui.outbox if f["type"] == "place"]
    assert len(frames) == 1 and frames[0]["tiles"] == pending_json(ui) and frames[0]["id"]
    assert not ui.submit()  # still awaiting the answer


def test_pass_needs_confirmation() -> None:
    ui = ui_for(started())
    ui.open_dialog("pass")
    assert ui.outbox == [] and ui.dialog == "pass"
    ui.key("Enter")
    assert [f["type"] for f in ui.outbox] == ["pass"] and ui.dialog is None


def test_swap_cannot_return_more_tiles_than_the_bag_holds() -> None:
    state = started()
    ui = ui_for(state)
    ui.view = {**ui.view, "bag_size": 2}  # type: ignore[dict-item]
    ui.open_dialog("swap")
    for i in ui.rack_order[:3]:
        ui.click_rack(i)
    ui.confirm_dialog()
    assert ui.outbox == []
    ui.click_rack(ui.rack_order[0])
    ui.confirm_dialog()
    assert ui.outbox and ui.outbox[0]["type"] == "swap" and len(ui.outbox[0]["tiles"]) == 2


def test_swap_is_unavailable_with_an_empty_bag() -> None:
    ui = ui_for(started())
    ui.view = {**ui.view, "bag_size": 0}  # type: ignore[dict-item]
    assert not ui.can_swap()
    ui.open_dialog("swap")
    assert ui.dialog is None


def test_shuffle_and_reorder_keep_the_rack() -> None:
    ui = ui_for(started())
    before = sorted(ui.rack_order)
    ui.shuffle()
    ui.move_rack_tile(ui.rack_order[0], None)
    assert sorted(ui.rack_order) == before


LOCAL_PLAY = st.lists(
    st.one_of(
        st.tuples(st.just("place"), st.integers(0, 6), st.sampled_from(["G7", "H7", "F7", "G6", "G8", "A1"])),
        st.tuples(st.just("take_back"), st.sampled_from(["G7", "H7", "F7", "G6"])),
        st.tuples(st.sampled_from(["backspace", "recall_all", "shuffle"])),
        st.tuples(st.just("move"), st.integers(0, 6), st.one_of(st.none(), st.integers(0, 6))),
        st.tuples(st.just("key"), st.sampled_from(["A", "E", "S", "Escape", "Backspace", "ArrowLeft"])),
    ),
    max_size=25,
)


@settings(max_examples=60, deadline=None)
@given(steps=LOCAL_PLAY)
def test_the_free_rack_tiles_follow_every_change_of_the_rack_order_and_the_pending_tiles(
    steps: list[tuple[object, ...]],
) -> None:
    """``available()`` keeps its answer between changes (a key asks for it several times): after any
    sequence of placements, take-backs, recalls, shuffles, reorders and keys, it is the rack's order minus
    the pending tiles, as worked out afresh."""
    ui = ui_for(started())
    for step in steps:
        match step:
            case ("place", int(i), str(sq)):
                ui.place(i, sq)
            case ("take_back", str(sq)):
                ui.take_back(sq)
            case ("backspace",):
                ui.key("Backspace")
            case ("recall_all",):
                ui.key("Escape")
            case ("shuffle",):
                ui.shuffle()
            case ("move", int(i), before):
                ui.move_rack_tile(i, before if isinstance(before, int) else None)
            case ("key", str(k)):
                ui.key(k)
        used = {p.rack_index for p in ui.pending}
        assert ui.available() == tuple(i for i in ui.rack_order if i not in used)
        assert sorted(ui.rack_order) == list(range(len(ui.rack)))


@pytest.mark.parametrize("seat", [0, 1])
def test_folding_a_placed_event_matches_the_engines_next_view(seat: int) -> None:
    state = started()
    ui = ui_for(state, seat=seat)
    after, events = run(state, e.Play(0, first_word(state)))
    ui.on_frame(
        {
            "type": "event",
            "seq": ui.seq + 1,
            "now": T0,
            "event": e.redact_event(events[0], seat),
            "clock": {"turn": after.turn, "deadline_ms": T0 + 1, "grace_deadline_ms": None},
        },
        T0,
    )
    want = e.view(after, seat, now_ms=T0)
    got = ui.view
    assert got is not None
    for key in ("board", "bag_size", "turn", "rack"):
        assert got[key] == want[key], key
    assert [(s["score"], s["rack_size"]) for s in got["seats"]] == [
        (s["score"], s["rack_size"]) for s in want["seats"]
    ]
    assert not any(f["type"] == "resync" for f in ui.outbox)


def test_a_sequence_gap_asks_for_a_resync() -> None:
    ui = ui_for(started())
    seq = ui.seq
    ui.on_frame({"type": "event", "seq": seq + 2, "now": T0, "event": {"type": "passed", "seat": 0}}, T0)
    assert ui.outbox == [{"type": "resync", "since": seq}]
    assert ui.seq == seq


def test_one_resync_is_asked_per_gap_until_the_snapshot_arrives() -> None:
    # Every event after a gap is also "out of order": asking again for each would flood the relay.
    state = started()
    ui = ui_for(state)
    seq = ui.seq
    for later in (seq + 2, seq + 3, seq + 4):
        ui.on_frame({"type": "event", "seq": later, "now": T0, "event": {"type": "passed", "seat": 0}}, T0)
    assert ui.outbox == [{"type": "resync", "since": seq}]
    ui.outbox.clear()
    ui.on_frame({"type": "snapshot", "seq": seq, "view": e.view(state, 0, now_ms=T0), "now": T0}, T0)
    ui.on_frame({"type": "event", "seq": seq + 2, "now": T0, "event": {"type": "passed", "seat": 0}}, T0)
    assert ui.outbox == [{"type": "resync", "since": seq}]


def test_a_refused_resync_may_be_asked_again() -> None:
    ui = ui_for(started())
    seq = ui.seq
    ui.on_frame({"type": "event", "seq": seq + 2, "now": T0, "event": {"type": "passed", "seat": 0}}, T0)
    ui.on_frame({"type": "error", "id": None, "code": "rate_limited", "message": "slow down", "now": T0}, T0)
    ui.outbox.clear()
    ui.on_frame({"type": "event", "seq": seq + 3, "now": T0, "event": {"type": "passed", "seat": 0}}, T0)
    assert ui.outbox == [{"type": "resync", "since": seq}]


def test_an_event_already_seen_is_ignored() -> None:
    ui = ui_for(started())
    seq, before = ui.seq, ui.view
    ui.on_frame({"type": "event", "seq": seq, "now": T0, "event": {"type": "passed", "seat": 0}}, T0)
    assert ui.outbox == [] and ui.seq == seq and ui.view == before


def test_a_rejected_play_names_every_refused_word_and_keeps_the_turn() -> None:
    ui = ui_for(started())
    ui.cursor = "G7"
    ui.key(ui.rack.replace("?", "")[0])
    ui.key(ui.rack.replace("?", "")[1])
    ui.submit()
    fid = ui.outbox[-1]["id"]
    ui.on_frame(
        {
            "type": "rejected",
            "id": fid,
            "words": ["XQZ", "AXQZ"],
            "reserve": {"tries": 9, "next_refill_ms": T0 + 15_000},
            "now": T0,
        },
        T0,
    )
    assert ui.rejected == ["XQZ", "AXQZ"]
    assert ui.view is not None and ui.view["reserve"]["tries"] == 9
    assert ui.pending and ui.my_turn and ui.awaiting == {}


def test_an_error_frame_is_kept_with_its_code_and_params() -> None:
    ui = ui_for(started())
    ui.on_frame(
        {"type": "error", "id": None, "code": "not_your_turn", "message": "x", "params": {}, "now": T0}, T0
    )
    assert ui.error == ("not_your_turn", {})


def test_a_refused_token_is_forgotten_so_the_next_join_is_by_name() -> None:
    ui = ui_for(started())
    ui.name = "Ann"
    ui.on_frame({"type": "error", "code": "bad_token", "message": "", "params": {}, "now": T0}, T0)
    assert ui.join_frame() == {"type": "join", "id": "j0", "name": "Ann"}


def test_an_opponents_play_keeps_my_pending_tiles_unless_it_took_their_squares() -> None:
    state = started()
    ui = ui_for(state, seat=1)
    ui.place(ui.available()[0], "G6")
    ui.place(ui.available()[0], "G7")
    _, events = run(state, e.Play(0, first_word(state)))
    ui.on_frame(
        {
            "type": "event",
            "seq": ui.seq + 1,
            "now": T0,
            "event": e.redact_event(events[0], 1),
            "clock": {"turn": 1},
        },
        T0,
    )
    assert [p.sq for p in ui.pending] == ["G6"]


def test_a_late_visitor_without_a_seat_watches_the_game() -> None:
    state = started()
    ui = UiState()
    ui.name = "Late"
    ui.enter_table("t1")
    ui.on_frame(
        {"type": "error", "id": "j0", "code": "already_started", "message": "", "params": {}, "now": T0}, T0
    )
    assert ui.outbox == [{"type": "watch", "id": "w0"}]
    ui.on_frame({"type": "welcome", "protocol": 1, "table": "t1", "seat": None, "token": None, "now": T0}, T0)
    ui.on_frame(snapshot(state, None), T0)
    assert ui.screen == "table" and ui.rack == "" and not ui.my_turn


def test_a_play_sent_on_a_dropped_socket_does_not_block_the_next_one() -> None:
    ui = ui_for(started())
    ui.cursor = "G7"
    ui.key(ui.rack.replace("?", "")[0])
    ui.key(ui.rack.replace("?", "")[1])
    assert ui.submit() and not ui.submit()
    ui.on_frame({"type": "welcome", "protocol": 1, "table": "t1", "seat": 0, "token": "tok", "now": T0}, T0)
    assert ui.submit()


def test_a_refused_join_is_shown_even_before_any_table_is_on_screen() -> None:
    ui = UiState()
    ui.enter_table("t1")
    ui.on_frame({"type": "error", "id": "j0", "code": "bad_name", "message": "", "params": {}, "now": T0}, T0)
    assert ui.screen == "home" and ui.notice == ("bad_name", {})


NAMES = [
    "A",
    "x" * 20,
    "x" * 21,
    "x" * 24,
    "x" * 25,
    "  padded name  ",
    " " * 3,
    "",
    "tab\there",
    "zwj\u200d",
    "Robot 1",
    "robot",
    "Robotte",
]


@pytest.mark.parametrize("name", NAMES)
def test_the_ui_accepts_a_name_exactly_when_the_table_would(name: str) -> None:
    # The relay hands the name to the engine's join rule (docs/protocol.md): the UI must not be stricter or
    # looser, or a player is refused by the server after the UI said yes (or never allowed a valid name).
    table = e.new_state()
    table, _ = run(table, e.CreateTable())
    try:
        run(table, e.Join(name))
        accepted = True
    except e.LexioError as err:
        assert err.code == "bad_name"
        accepted = False
    ui = UiState()
    ui.name = name
    assert ui.valid_name() is accepted


def test_a_refused_name_gets_a_message_stating_the_real_limit() -> None:
    from app import render
    from app.i18n import Translator

    from engine.game import NAME_MAX

    html = render.home(UiState(), Translator("fr"))
    # The browser's maxlength counts UTF-16 units (an emoji is 2): it must not cut a name the table accepts.
    assert "maxlength" not in html and 'aria-describedby="name-hint name-error"' in html
    ui = UiState()
    for name, code in [
        ("", "name_required"),
        ("x" * (NAME_MAX + 1), "name_too_long"),
        ("a\tb", "name_unprintable"),
    ]:
        ui.name = name
        assert ui.name_problem() == code
    ui.name = "\U0001f600" * NAME_MAX
    assert ui.name_problem() is None
    for lang, to in (("fr", "à"), ("en", "to")):
        tr = Translator(lang)
        assert f"1 {to} {NAME_MAX}" in tr.t("name_required") and f"1 {to} {NAME_MAX}" in tr.t("name_hint")
        assert f"{NAME_MAX + 1} " in tr.t("name_too_long", n=NAME_MAX + 1)
        assert str(NAME_MAX) in tr.error("bad_name", {})
    # A name already taken is its own message, not the length rule.
    taken = Translator("en").error("bad_name", {"name": "Ann", "reason": "taken"})
    assert "Ann is already taken" in taken and str(NAME_MAX) not in taken


def test_no_move_is_sent_or_offered_while_the_connection_is_down() -> None:
    from app import render
    from app.i18n import Translator

    ui = ui_for(started())
    ui.cursor = "G7"
    ui.key(ui.rack.replace("?", "")[0])
    ui.key(ui.rack.replace("?", "")[1])
    ui.conn = "offline"
    assert not ui.submit() and ui.outbox == []
    ui.open_dialog("pass")
    assert ui.dialog is None
    html = render.rack_area(ui, Translator("en"))
    for button in ("btn-submit", "btn-swap", "btn-pass"):
        assert re.search(rf'id="{button}"[^>]* disabled', html), button
    ui.conn = "online"
    assert ui.submit()
