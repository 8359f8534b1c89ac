"""The journal: every change is an event, state = fold(events), JSON forms, and what each seat may see."""

from __future__ import annotations

import json
import random

import pytest
from engine_testkit import T0, knows_no, random_game, seated_game, step, table

from engine import (
    EVENT_TYPES,
    SCHEMA_VERSION,
    GameEnded,
    GameStarted,
    Pass,
    Passed,
    Placed,
    Play,
    Rejected,
    SeatJoined,
    SeatLeft,
    Swap,
    Swapped,
    TableCreated,
    Tile,
    TimedOut,
    event_from_dict,
    event_to_dict,
    parse_move,
    redact_event,
    replay,
    view,
)
from engine.errors import BadEvent

SAMPLES = [
    TableCreated("lexio", 120, at=1),
    SeatJoined(0, "Zoé", None, at=2),
    SeatJoined(1, "Bot", "easy", at=3),
    SeatLeft(1, at=4),
    GameStarted("ABC", ("DEFGHIJ", "KLMNOP?"), at=5),
    Placed(0, (Tile("G7", "A"), Tile("H7", "S", True)), ("AS",), 1, "AB", "C", "DEFGHAB", at=6),
    Swapped(1, "K?", "XY", "QRS", "LMNOPXY", at=7),
    Passed(0, at=8),
    TimedOut(1, at=9),
    Rejected(0, (Tile("G8", "Z"),), ("AZ",), at=10),
    GameEnded("out", (5, -5), ("", "K?"), (20, -5), (0,), at=11),
    SeatJoined(2, "Éloïse", None, at=12, account="acc-1"),
]


def test_every_event_type_has_a_sample_here() -> None:
    assert {type(e) for e in SAMPLES} == set(EVENT_TYPES.values())


@pytest.mark.parametrize("event", SAMPLES, ids=lambda e: type(e).__name__)
def test_events_round_trip_through_json_with_a_schema_version(event: object) -> None:
    d = event_to_dict(event)  # type: ignore[arg-type]
    assert d["schema"] == SCHEMA_VERSION and EVENT_TYPES[d["type"]] is type(event)
    text = json.dumps(d)
    assert event_from_dict(json.loads(text)) == event


def test_a_guests_seat_keeps_its_journaled_form_and_an_accounts_seat_says_whose_it_is() -> None:
    # Journals written before accounts have no "account" key: they read back as guests' seats, unchanged.
    guest = {"schema": 1, "type": "seat_joined", "seat": 0, "name": "Zoé", "bot": None, "at": 2}
    assert event_to_dict(SeatJoined(0, "Zoé", None, at=2)) == guest
    assert event_from_dict(guest) == SeatJoined(0, "Zoé", None, at=2)
    member = event_to_dict(SeatJoined(0, "Éloïse", None, at=2, account="acc-1"))
    assert member["account"] == "acc-1" and event_from_dict(member).account == "acc-1"
    state = replay([TableCreated("lexio", 120, at=1), SeatJoined(0, "Éloïse", None, at=2, account="acc-1"),
                    SeatJoined(1, "Zoé", None, at=3)])  # fmt: skip
    seats = view(state, None, now_ms=4)["seats"]
    assert seats[0]["account"] is True and "account" not in seats[1]


def test_the_dict_form_holds_only_json_types() -> None:
    def plain(x: object) -> bool:
        if isinstance(x, dict):
            return all(isinstance(k, str) and plain(v) for k, v in x.items())
        if isinstance(x, list):
            return all(plain(v) for v in x)
        return x is None or isinstance(x, str | int | bool)

    assert all(plain(event_to_dict(e)) for e in SAMPLES)
    assert event_to_dict(SAMPLES[5])["tiles"] == [
        {"sq": "G7", "letter": "A", "blank": False},
        {"sq": "H7", "letter": "S", "blank": True},
    ]


@pytest.mark.parametrize(
    "bad",
    [
        None,
        [],
        {"type": "passed", "seat": 0, "at": 1},  # no schema
        {"schema": SCHEMA_VERSION + 1, "type": "passed", "seat": 0, "at": 1},
        {"schema": 1, "type": "jumped", "seat": 0, "at": 1},
        {"schema": 1, "type": "passed", "at": 1},
        {"schema": 1, "type": "passed", "seat": 0, "at": 1, "extra": 2},
        {"schema": 1, "type": "passed", "seat": "0", "at": 1},
        {"schema": 1, "type": "passed", "seat": True, "at": 1},
        {"schema": 1, "type": "game_started", "bag": "A", "racks": [1], "at": 1},
        {"schema": 1, "type": "rejected", "seat": 0, "tiles": "G7", "unknown": [], "at": 1},
        {"schema": 1, "type": "seat_joined", "seat": 0, "name": "A", "bot": 3, "at": 1},
    ],
)
def test_malformed_event_dicts_are_refused_with_bad_event(bad: object) -> None:
    with pytest.raises(BadEvent) as err:
        event_from_dict(bad)
    assert err.value.code == "bad_event"


def test_replaying_the_events_reproduces_the_state_exactly() -> None:
    *_, (_, _, _, final) = random_game(7, 3)
    assert final.status == "ended"
    assert replay(final.events) == final
    assert replay(event_from_dict(json.loads(json.dumps(event_to_dict(e)))) for e in final.events) == final


def test_a_rejected_play_is_journalled_because_it_changes_the_reserve() -> None:
    state = table(["MAISONX", "ABCDEFG"], "")
    move = Play(0, parse_move("7E MAISON", state.board))
    after, events = step(state, move, lexicon=knows_no("MAISON"))
    assert isinstance(events[0], Rejected) and after.version == state.version + 1
    assert replay(after.events) == after


def test_redaction_shows_a_seat_its_own_rack_and_others_only_sizes() -> None:
    started = SAMPLES[4]
    assert redact_event(started, 0) == {"schema": 1, "type": "game_started", "at": 5, "rack_sizes": [7, 7],
                                        "bag_size": 3, "rack": "DEFGHIJ"}  # fmt: skip
    assert redact_event(started, 1)["rack"] == "KLMNOP?"
    assert "rack" not in redact_event(started, None)


def test_redaction_of_a_placement_hides_the_draw_from_others() -> None:
    placed = SAMPLES[5]
    mine, theirs = redact_event(placed, 0), redact_event(placed, 1)
    assert mine["drawn"] == "AB" and mine["rack"] == "DEFGHAB"
    assert "drawn" not in theirs and "rack" not in theirs and "bag" not in theirs and "bag" not in mine
    assert theirs["drawn_count"] == 2 and theirs["rack_size"] == 7 and theirs["bag_size"] == 1
    assert theirs["words"] == ["AS"] and theirs["score"] == 1 and theirs["tiles"] == mine["tiles"]


def test_the_table_sees_how_many_tiles_you_swap_never_which_ones() -> None:
    swapped = SAMPLES[6]
    theirs = redact_event(swapped, 0)
    assert theirs == {"schema": 1, "type": "swapped", "at": 7, "seat": 1, "count": 2, "rack_size": 7,
                      "bag_size": 3}  # fmt: skip
    mine = redact_event(swapped, 1)
    assert (mine["returned"], mine["drawn"], mine["rack"]) == ("K?", "XY", "LMNOPXY") and "bag" not in mine


def test_a_rejected_play_shows_its_tiles_and_words_only_to_its_seat() -> None:
    rejected = SAMPLES[9]
    assert redact_event(rejected, 1) == {"schema": 1, "type": "rejected", "at": 10, "seat": 0}
    assert redact_event(rejected, 0)["unknown"] == ["AZ"]


def test_the_end_shows_everything() -> None:
    ended = SAMPLES[10]
    assert redact_event(ended, None) == event_to_dict(ended)


def test_view_has_the_documented_shape_and_own_reserve_only() -> None:
    state = seated_game(2, seed=3)
    state, _ = step(state, Play(0, Swap(state.seats[0].rack[:2])), rng=random.Random(1), now_ms=T0 + 10)
    v = view(state, 1, now_ms=T0 + 20)
    keys = "schema version variant status turn_seconds you rack seats board bag_size turn turn_started_ms"
    assert set(v) == {*keys.split(), "scoreless_turns", "reserve", "journal", "result"}
    assert v["you"] == 1 and v["rack"] == state.seats[1].rack and v["turn"] == 1
    assert v["reserve"] == {"tries": 10, "next_refill_ms": None} and v["bag_size"] == 102 - 14
    assert v["version"] == len(v["journal"]) == state.version
    assert [s["rack"] for s in v["seats"]] == [None, None] and [s["rack_size"] for s in v["seats"]] == [7, 7]
    assert v["journal"][-1] == {"schema": 1, "type": "swapped", "at": T0 + 10, "seat": 0, "count": 2,
                                "rack_size": 7, "bag_size": 102 - 14}  # fmt: skip
    spectator = view(state, None, now_ms=T0 + 20)
    assert spectator["you"] is None and spectator["rack"] is None and spectator["reserve"] is None
    assert view(state, 9, now_ms=T0)["you"] is None
    json.dumps(v)


def test_passes_are_journalled_for_everyone() -> None:
    state = table(["AB", "CD"], "")
    state, _ = step(state, Play(0, Pass()))
    assert redact_event(state.events[-1], 1) == {"schema": 1, "type": "passed", "seat": 0, "at": T0 + 1_000}


def test_the_table_sees_how_many_tiles_each_player_holds_and_how_many_are_left_never_which() -> None:
    state = seated_game(3, seed=11)
    for seat in (0, 1, 2, None):
        v = view(state, seat, now_ms=T0)
        assert [s["rack_size"] for s in v["seats"]] == [7, 7, 7] and v["bag_size"] == 102 - 21
        assert all(s["rack"] is None for s in v["seats"])
        assert v["rack"] == (state.seats[seat].rack if seat is not None else None)
        started = v["journal"][-1]
        assert started["type"] == "game_started" and "bag" not in started
        assert started.get("rack") == (state.seats[seat].rack if seat is not None else None)


def test_everything_is_recorded_in_the_game_log_words_points_swaps_and_passes() -> None:
    state = table(["MAISONX", "ABCDEFG", "HIJKLMN"], "OPQRSTUVWXYZ")
    state, _ = step(state, Play(0, parse_move("7E MAISON", state.board)))
    state, _ = step(state, Play(1, Swap("AB")))
    state, _ = step(state, Play(2, Pass()))
    log = view(state, 2, now_ms=T0 + 2_000)["journal"][-3:]
    assert [(e["type"], e["seat"]) for e in log] == [("placed", 0), ("swapped", 1), ("passed", 2)]
    assert (log[0]["words"], log[0]["score"], log[1]["count"]) == (["MAISON"], 7, 2)
