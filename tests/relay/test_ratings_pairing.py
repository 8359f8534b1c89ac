"""The "play now" matcher (relay/ratings/pairing.py): windows that widen with the wait, one seek per player,
blocked players kept apart, table sizes and classes respected, and the 15 s confirmation with its drops and
requeues; time is always passed in."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relay.ratings import (
    CODES,
    Matcher,
    Proposal,
    RatingError,
    Seek,
    SizePref,
    SpeedClass,
    blocked_pairs,
    parse_size,
    window,
)
from relay.ratings.pairing import CONFIRM_SECONDS, WINDOW_BASE, WINDOW_MAX, WINDOW_STEP, WINDOW_STEP_SECONDS

T0 = 1_000.0
N = SpeedClass.NORMAL


def seek(
    player: str,
    rating: int = 1500,
    at: float = T0,
    size: SizePref = SizePref.TWO,
    speed: SpeedClass = N,
    guest: bool = False,
) -> Seek:
    return Seek(player, speed, size, rating, at, guest)


def code_of(excinfo: pytest.ExceptionInfo[RatingError]) -> str:
    assert excinfo.value.code in CODES
    return excinfo.value.code


def only(proposals: tuple[Proposal, ...]) -> Proposal:
    assert len(proposals) == 1, proposals
    return proposals[0]


# Windows.


def test_the_window_starts_at_100_and_widens_by_50_every_5_seconds_up_to_its_cap() -> None:
    assert window(0) == WINDOW_BASE == 100
    assert window(4.99) == 100
    assert window(5) == 100 + WINDOW_STEP == 150
    assert window(12) == 200
    assert window(-3) == 100
    assert window(10_000) == WINDOW_MAX


@given(st.floats(-100, 1e6), st.floats(0, 1e6))
def test_the_window_never_narrows_as_the_wait_grows(waited: float, more: float) -> None:
    assert window(waited) <= window(waited + more) <= WINDOW_MAX


# Seeks.


def test_two_close_seeks_are_offered_a_table_and_start_once_both_confirm() -> None:
    m = Matcher()
    assert m.seek(seek("ana", 1500)).offered == ()
    p = only(m.seek(seek("bo", 1560, at=T0 + 1)).offered)
    assert p.players == ("ana", "bo")
    assert p.speed is N
    assert p.gap == 60
    assert p.deadline == T0 + 1 + CONFIRM_SECONDS
    assert m.confirm("bo", p.id, T0 + 2).started == ()
    assert m.confirmed(p.id) == {"bo"}
    started = m.confirm("ana", p.id, T0 + 3).started
    assert started == (p,)
    assert m.seek_of("ana") is None and m.seek_of("bo") is None
    assert m.proposals() == () and m.waiting() == ()


def test_a_wide_gap_waits_until_both_windows_cover_it() -> None:
    m = Matcher()
    m.seek(seek("ana", 1500))
    # ana's window is wide after a minute, but bo's is still 100: neither is put in a game outside its own.
    assert m.tick(T0 + 60).offered == ()
    assert m.seek(seek("bo", 1800, at=T0 + 60)).offered == ()
    assert m.tick(T0 + 60 + 4 * WINDOW_STEP_SECONDS - 0.1).offered == ()
    p = only(m.tick(T0 + 60 + 4 * WINDOW_STEP_SECONDS).offered)
    assert set(p.players) == {"ana", "bo"}


def test_a_gap_past_the_largest_window_is_never_paired() -> None:
    m = Matcher()
    m.seek(seek("ana", 1000))
    m.seek(seek("bo", 1000 + WINDOW_MAX + 1))
    assert m.tick(T0 + 3600).offered == ()


def test_the_longest_waiting_seek_is_served_first() -> None:
    m = Matcher()
    m.seek(seek("old", 1500, at=T0))
    m.seek(seek("new", 1500, at=T0 + 30, size=SizePref.THREE_FOUR))
    p = only(m.seek(seek("third", 1520, at=T0 + 31)).offered)
    assert p.players == ("old", "third")


def test_a_second_seek_is_refused_with_its_code_and_changes_nothing() -> None:
    m = Matcher()
    m.seek(seek("ana"))
    for again in (seek("ana", 1400), seek("ana", speed=SpeedClass.RAPIDE)):
        with pytest.raises(RatingError) as excinfo:
            m.seek(again)
        assert code_of(excinfo) == "seek_twice"
    assert m.waiting() == (seek("ana"),)
    # Also while offered a table.
    p = only(m.seek(seek("bo")).offered)
    with pytest.raises(RatingError) as excinfo:
        m.seek(seek("bo", at=T0 + 1))
    assert code_of(excinfo) == "seek_twice"
    assert m.offer_of("bo") == p


def test_a_guest_cannot_seek_a_rated_game() -> None:
    m = Matcher()
    with pytest.raises(RatingError) as excinfo:
        m.seek(seek("guest-1", guest=True))
    assert code_of(excinfo) == "seek_guest"
    assert m.waiting() == ()


def test_size_preferences_parse_by_their_wire_names_and_anything_else_is_refused() -> None:
    assert [parse_size(s) for s in ("2", "3-4", "any")] == [SizePref.TWO, SizePref.THREE_FOUR, SizePref.ANY]
    with pytest.raises(RatingError) as excinfo:
        parse_size("5")
    assert code_of(excinfo) == "bad_size"


# Classes and sizes.


def test_seeks_of_different_classes_are_never_paired() -> None:
    m = Matcher()
    m.seek(seek("ana", speed=SpeedClass.RAPIDE))
    assert m.seek(seek("bo", speed=SpeedClass.NORMAL)).offered == ()
    assert m.tick(T0 + 600).offered == ()


def test_a_two_player_seek_never_sits_at_a_bigger_table_and_a_3_4_seek_never_at_two() -> None:
    m = Matcher()
    m.seek(seek("ana", size=SizePref.TWO))
    assert m.seek(seek("bo", size=SizePref.THREE_FOUR)).offered == ()
    assert m.seek(seek("cy", size=SizePref.THREE_FOUR)).offered == ()
    p = only(m.seek(seek("di", size=SizePref.THREE_FOUR)).offered)
    assert p.players == ("bo", "cy", "di")
    assert [s.player for s in m.waiting()] == ["ana"]


def test_an_any_size_seek_completes_a_bigger_table_and_otherwise_plays_at_two_at_once() -> None:
    m = Matcher()
    m.seek(seek("ana", size=SizePref.THREE_FOUR))
    m.seek(seek("bo", size=SizePref.THREE_FOUR))
    m.seek(seek("x", size=SizePref.TWO, rating=2400))
    p = only(m.seek(seek("cy", size=SizePref.ANY)).offered)
    assert p.players == ("ana", "bo", "cy")
    # Play now: two "any" seeks do not wait for a third.
    m2 = Matcher()
    m2.seek(seek("a", size=SizePref.ANY))
    assert len(only(m2.seek(seek("b", size=SizePref.ANY)).offered).seeks) == 2


def test_four_seeks_that_fit_together_at_the_same_moment_make_a_table_of_four() -> None:
    m = Matcher()
    # No three of them are within 100 of each other, so nothing forms until the windows reach 150.
    for name, rating in (("a", 1500), ("b", 1500), ("c", 1650), ("d", 1650)):
        assert m.seek(seek(name, rating, size=SizePref.THREE_FOUR)).offered == ()
    p = only(m.tick(T0 + WINDOW_STEP_SECONDS).offered)
    assert p.players == ("a", "b", "c", "d")
    assert p.gap == 150


# Blocked players.


def test_blocked_players_are_never_put_together_even_when_nobody_else_waits() -> None:
    m = Matcher(blocked=blocked_pairs([("bo", "ana")]))
    m.seek(seek("ana"))
    m.seek(seek("bo"))
    assert m.tick(T0 + 3600).offered == ()
    p = only(m.seek(seek("cy", at=T0 + 3600)).offered)
    assert p.players == ("ana", "cy")


# Confirmation.


def test_confirming_a_table_one_was_not_offered_is_refused_and_changes_nothing() -> None:
    m = Matcher()
    m.seek(seek("ana"))
    p = only(m.seek(seek("bo")).offered)
    m.seek(seek("cy", rating=2500))
    for player, pid in (("cy", p.id), ("ana", "nope"), ("zed", p.id)):
        with pytest.raises(RatingError) as excinfo:
            m.confirm(player, pid, T0 + 1)
        assert code_of(excinfo) == "not_offered"
        with pytest.raises(RatingError) as excinfo:
            m.decline(player, pid, T0 + 1)
        assert code_of(excinfo) == "not_offered"
    assert m.confirmed(p.id) == frozenset()
    assert m.offer_of("ana") == p


def test_a_confirmation_at_the_deadline_counts_and_one_after_it_is_refused() -> None:
    m = Matcher()
    m.seek(seek("ana"))
    p = only(m.seek(seek("bo")).offered)
    m.confirm("ana", p.id, p.deadline)
    with pytest.raises(RatingError) as excinfo:
        m.confirm("bo", p.id, p.deadline + 0.001)
    assert code_of(excinfo) == "not_offered"


def test_a_seat_that_does_not_confirm_in_15_s_is_dropped_and_the_others_wait_again_with_their_time() -> None:
    m = Matcher()
    m.seek(seek("ana", at=T0))
    p = only(m.seek(seek("bo", at=T0 + 2)).offered)
    assert m.seek(seek("cy", at=T0 + 3, size=SizePref.ANY)).offered == ()
    m.confirm("bo", p.id, T0 + 5)
    assert m.tick(p.deadline).dropped == ()
    out = m.tick(p.deadline + 0.5)
    assert out.dropped == ("ana",)
    assert out.requeued == ("bo",)
    assert m.seek_of("ana") is None
    assert m.seek_of("bo") == seek("bo", at=T0 + 2)  # the original enqueue time, so its wide window
    # bo (waiting again) and cy are matched in the same step.
    again = only(out.offered)
    assert again.players == ("bo", "cy")


def test_declining_drops_the_decliner_and_requeues_the_others() -> None:
    m = Matcher()
    for name in ("ana", "bo", "cy"):
        m.seek(seek(name, size=SizePref.THREE_FOUR))
    p = only(m.proposals())
    m.confirm("ana", p.id, T0 + 1)
    out = m.decline("bo", p.id, T0 + 2)
    assert out.dropped == ("bo",)
    assert out.requeued == ("ana", "cy")
    assert out.offered == ()
    assert [s.player for s in m.waiting()] == ["ana", "cy"]


def test_cancelling_withdraws_a_seek_and_fails_its_offer_and_cancelling_nothing_is_refused() -> None:
    m = Matcher()
    m.seek(seek("ana"))
    m.cancel("ana", T0 + 1)
    assert m.waiting() == ()
    with pytest.raises(RatingError) as excinfo:
        m.cancel("ana", T0 + 2)
    assert code_of(excinfo) == "no_seek"
    m.seek(seek("ana", at=T0 + 3))
    p = only(m.seek(seek("bo", at=T0 + 3)).offered)
    out = m.cancel("bo", T0 + 4)
    assert out.dropped == ("bo",) and out.requeued == ("ana",)
    assert m.offer_of("ana") is None and p not in m.proposals()


# Invariants over any sequence of calls.


@dataclass(frozen=True)
class Op:
    kind: str
    who: int
    rating: int
    size: SizePref
    speed: SpeedClass
    dt: float


ops_st = st.lists(
    st.builds(
        Op,
        kind=st.sampled_from(["seek"] * 3 + ["confirm"] * 6 + ["decline", "cancel", "tick"]),
        who=st.integers(0, 7),
        rating=st.integers(1350, 1750),
        size=st.sampled_from(list(SizePref)),
        speed=st.sampled_from([SpeedClass.RAPIDE, SpeedClass.NORMAL]),
        dt=st.sampled_from([0.0, 0.0, 0.0, 0.5, 2.0, 6.0, 16.0]),
    ),
    min_size=10,
    max_size=80,
)
blocked_st = st.sets(st.tuples(st.integers(0, 7), st.integers(0, 7)), max_size=6)


@settings(max_examples=300, deadline=None)
@given(ops_st, blocked_st)
def test_no_call_sequence_seats_blocked_players_together_or_pairs_a_seek_twice_or_breaks_a_window(
    ops: list[Op], blocked_ids: set[tuple[int, int]]
) -> None:
    blocked = {(f"p{a}", f"p{b}") for a, b in blocked_ids}
    apart = blocked_pairs(blocked)
    m = Matcher(blocked=apart)
    now = T0
    seen: set[Seek] = set()
    started: list[Proposal] = []
    for op in ops:
        now += op.dt
        player = f"p{op.who}"
        waiting_on = [pl for p in m.proposals() for pl in p.players if pl not in m.confirmed(p.id)]
        if op.kind in ("confirm", "decline") and waiting_on and op.who < 7:
            # Mostly a seat that has an answer to give (else tables would rarely start); sometimes anyone.
            player = waiting_on[op.who % len(waiting_on)]
        try:
            if op.kind == "seek":
                out = m.seek(Seek(player, op.speed, op.size, op.rating, now))
            elif op.kind == "tick":
                out = m.tick(now)
            elif op.kind == "cancel":
                out = m.cancel(player, now)
            else:
                offer = m.offer_of(player)
                pid = offer.id if offer is not None else "none"
                out = (m.confirm if op.kind == "confirm" else m.decline)(player, pid, now)
        except RatingError as e:
            assert e.code in CODES
            continue
        for p in out.offered:
            assert p.offered_at == now
            assert len({s.speed for s in p.seeks}) == 1
            assert all(s.size.allows(len(p.seeks)) for s in p.seeks)
            for a in p.seeks:
                for b in p.seeks:
                    if a is not b:
                        assert not apart(a.player, b.player)
                        assert abs(a.rating - b.rating) <= min(a.window(now), b.window(now))
        for p in out.started:
            for s in p.seeks:
                assert s not in seen, "a seek started twice"
                seen.add(s)
                assert m.seek_of(s.player) is None
            started.append(p)
        # Every player is in at most one pending proposal, and only with a live seek.
        offered = [pl for p in m.proposals() for pl in p.players]
        assert len(offered) == len(set(offered))
        assert all(m.seek_of(pl) is not None for pl in offered)
        assert not set(offered) & {s.player for s in m.waiting()}


def test_the_ratings_core_imports_no_clock_and_no_random_source() -> None:
    root = Path(__file__).resolve().parents[2] / "relay" / "ratings"
    banned = {"time", "datetime", "random", "secrets", "asyncio"}
    for path in sorted(root.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            assert not {n.split(".")[0] for n in names} & banned, (path.name, names)
