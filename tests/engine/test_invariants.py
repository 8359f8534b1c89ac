"""Invariants over random games (hypothesis): conservation, scores, replay, redaction, serialisation."""

from __future__ import annotations

import json
from collections import Counter

from engine_testkit import random_game
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import (
    GameEnded,
    GameStarted,
    Placed,
    Rejected,
    Swapped,
    event_from_dict,
    event_to_dict,
    redact_event,
    replay,
    view,
)

GAMES = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
seeds = st.integers(0, 2**32 - 1)
players = st.integers(2, 4)
variants = st.sampled_from(["lexio", "lexio", "classic"])
PRIVATE_KEYS = {"bag", "racks", "drawn", "returned", "rack", "unknown", "tiles"}


@GAMES
@given(seed=seeds, n=players, variant=variants)
def test_every_tile_is_conserved_at_every_step(seed: int, n: int, variant: str) -> None:
    full: Counter[str] | None = None
    for _, _, _, after in random_game(seed, n, variant=variant):
        held: Counter[str] = Counter(after.bag)
        for s in after.seats:
            held.update(s.rack)
        held.update("?" if t.blank else t.letter for t in after.board.tiles())
        if full is None:
            full = Counter(after.rules.full_bag())
            assert sum(full.values()) == (102 if variant == "lexio" else 100)
        assert held == full


@GAMES
@given(seed=seeds, n=players)
def test_each_score_is_the_sum_of_its_journal(seed: int, n: int) -> None:
    final = None
    for _, _, _, after in random_game(seed, n):
        final = after
        totals = [0] * n
        for e in after.events:
            if isinstance(e, Placed):
                totals[e.seat] += e.score
            elif isinstance(e, GameEnded):
                totals = [t + a for t, a in zip(totals, e.adjustments, strict=True)]
                assert tuple(totals) == e.scores
        assert [s.score for s in after.seats] == totals
    assert final is not None
    if final.status == "ended":
        assert final.result is not None and sum(final.result.adjustments) <= 0
        top = max(final.result.scores)
        assert final.result.winners == tuple(i for i, sc in enumerate(final.result.scores) if sc == top)


@GAMES
@given(seed=seeds, n=players)
def test_replay_is_deterministic_and_json_faithful(seed: int, n: int) -> None:
    states = [after for _, _, _, after in random_game(seed, n)]
    assert states
    final = states[-1]
    assert replay(final.events) == final
    decoded = [event_from_dict(json.loads(json.dumps(event_to_dict(e)))) for e in final.events]
    assert replay(decoded) == final
    # Every prefix folds to the state that was live at that moment.
    for s in states[:: max(1, len(states) // 5)]:
        assert replay(final.events[: s.version]) == s
    # The same seed plays the same game.
    again = [after for _, _, _, after in random_game(seed, n)][-1]
    assert again.events == final.events


@GAMES
@given(seed=seeds, n=players)
def test_redaction_never_leaks_another_rack_or_the_bag(seed: int, n: int) -> None:
    for _, _, events, after in random_game(seed, n):
        for e in events:
            for seat in (*range(n), None):
                r = redact_event(e, seat)
                if isinstance(e, GameEnded):
                    continue
                assert "bag" not in r and "racks" not in r
                own = getattr(e, "seat", None) == seat and seat is not None
                if isinstance(e, Placed | Swapped | Rejected) and not own:
                    assert not ({"drawn", "returned", "rack", "unknown"} & set(r))
                    if isinstance(e, Rejected | Swapped):
                        assert "tiles" not in r
                if "rack" in r:  # only ever the observer's own rack
                    assert seat is not None
                    if isinstance(e, GameStarted):
                        assert r["rack"] == e.racks[seat]
                    else:
                        assert own and r["rack"] == getattr(e, "rack", None)
        if after.status == "playing":
            for seat in (*range(n), None):
                v = view(after, seat, now_ms=after.turn_started_ms or 0)
                text = json.dumps(v)
                assert '"bag"' not in text and '"racks"' not in text
                for i, s in enumerate(v["seats"]):
                    assert s["rack"] is None and s["rack_size"] == len(after.seats[i].rack)
                assert v["rack"] == (after.seats[seat].rack if seat is not None else None)
                for item in v["journal"]:
                    if item.get("seat") != seat:
                        assert not ({"drawn", "returned", "unknown"} & set(item))
                    if "rack" in item:
                        assert item["type"] == "game_started" or item.get("seat") == seat
