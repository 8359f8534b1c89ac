"""Pairing ("play now"): a pure matcher of seeks into proposed tables that every seat must confirm.

A seek is one player's wish to play a rated game now: a speed class, a table size preference and the
rating to pair on (:attr:`relay.ratings.model.Rating.pairing_value`). Seeks wait in one queue per class,
oldest first. A table is proposed when every two of its seats are within both their windows: the window
starts at :data:`WINDOW_BASE` points and widens by :data:`WINDOW_STEP` every :data:`WINDOW_STEP_SECONDS` of
waiting, up to :data:`WINDOW_MAX`. Blocked pairs (a predicate passed in) never sit together. Every seat must
confirm within :data:`CONFIRM_SECONDS`; a seat that declines or does not confirm in time is dropped, and the
others wait again with their original enqueue time (so with the window they had reached).

The grouping itself is one pure function, :func:`match` (waiting seeks, the time and the blocked predicate
in; proposed tables out): the in-memory :class:`Matcher` (tests, bench/ratings.py) and the relay's queue in
the accounts database (relay/ratings/queue.py, one pairing across a cluster) both call it, so the bench
measures the pairing the relay does.

Nothing here reads a clock: every call takes ``now`` (seconds on the caller's clock), and windows widen and
offers expire only when the matcher is told the time, so the relay calls :meth:`Matcher.tick` every second
or so. A refused call (RatingError) changes nothing.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from relay.ratings.classes import SpeedClass
from relay.ratings.errors import RatingError

WINDOW_BASE: Final = 100
WINDOW_STEP: Final = 50
WINDOW_STEP_SECONDS: Final = 5.0
# Past this gap a game is not worth having for either side: an outlier waits for a peer instead.
WINDOW_MAX: Final = 600
CONFIRM_SECONDS: Final = 15.0

Blocked = Callable[[str, str], bool]


class SizePref(StrEnum):
    """The table sizes a seek accepts. The value is the stable wire name."""

    TWO = "2"
    THREE_FOUR = "3-4"
    ANY = "any"

    def allows(self, seats: int) -> bool:
        """Whether a table of ``seats`` seats suits this preference."""
        if self is SizePref.TWO:
            return seats == 2
        if self is SizePref.THREE_FOUR:
            return seats in (3, 4)
        return 2 <= seats <= 4

    @property
    def sizes(self) -> tuple[int, ...]:
        """The sizes to try, largest first: a bigger table is proposed when enough seeks fit it."""
        return tuple(n for n in (4, 3, 2) if self.allows(n))


def parse_size(text: str) -> SizePref:
    """The preference named ``text`` (``"2"``, ``"3-4"``, ``"any"``). Raises RatingError ``bad_size``."""
    try:
        return SizePref(text)
    except ValueError:
        raise RatingError("bad_size", "table size must be 2, 3-4 or any") from None


def window(waited: float) -> int:
    """The largest rating gap accepted after ``waited`` seconds in the queue: 100, then 50 more every 5 s,
    at most 600. Never narrows as ``waited`` grows; a negative wait counts as none."""
    steps = math.floor(max(0.0, waited) / WINDOW_STEP_SECONDS)
    return min(WINDOW_MAX, WINDOW_BASE + WINDOW_STEP * steps)


def never_blocked(a: str, b: str) -> bool:
    """The default: nobody has blocked anybody."""
    return False


def blocked_pairs(pairs: Iterable[tuple[str, str]]) -> Blocked:
    """A predicate from explicit pairs, either way round (``a`` blocked ``b`` keeps both apart)."""
    apart = frozenset(frozenset(pair) for pair in pairs)
    return lambda a, b: frozenset((a, b)) in apart


@dataclass(frozen=True, slots=True)
class Seek:
    """One player's wish to play now. ``enqueued_at`` (seconds) sets the waiting time and so the window;
    ``guest`` seeks are refused (ratings belong to accounts)."""

    player: str
    speed: SpeedClass
    size: SizePref
    rating: int
    enqueued_at: float
    guest: bool = False

    def window(self, now: float) -> int:
        """This seek's window at ``now``."""
        return window(now - self.enqueued_at)


@dataclass(frozen=True, slots=True)
class Proposal:
    """A proposed table: its seeks, oldest first (the seat order), offered at ``offered_at``."""

    id: str
    speed: SpeedClass
    seeks: tuple[Seek, ...]
    offered_at: float

    @property
    def deadline(self) -> float:
        """The last moment a seat may confirm (inclusive)."""
        return self.offered_at + CONFIRM_SECONDS

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(s.player for s in self.seeks)

    @property
    def gap(self) -> int:
        """The rating spread of the table (highest minus lowest)."""
        ratings = [s.rating for s in self.seeks]
        return max(ratings) - min(ratings)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a call changed, for the relay to tell the players: ``offered`` new proposals (ask each seat to
    confirm), ``started`` proposals every seat confirmed (create the table; their seeks are gone),
    ``dropped`` players whose seek was removed for declining or not confirming in time, ``requeued`` players
    waiting again after a proposal failed (they may be in a new ``offered`` proposal already)."""

    offered: tuple[Proposal, ...] = ()
    started: tuple[Proposal, ...] = ()
    dropped: tuple[str, ...] = ()
    requeued: tuple[str, ...] = ()


class _Changes:
    """The Outcome being built by one call."""

    def __init__(self) -> None:
        self.offered: list[Proposal] = []
        self.started: list[Proposal] = []
        self.dropped: list[str] = []
        self.requeued: list[str] = []

    def outcome(self) -> Outcome:
        return Outcome(tuple(self.offered), tuple(self.started), tuple(self.dropped), tuple(self.requeued))


def match(queue: Sequence[Seek], now: float, blocked: Blocked = never_blocked) -> list[tuple[Seek, ...]]:
    """The tables to propose at ``now`` from the waiting seeks ``queue``, given oldest first (the caller's
    order is the order of service: :class:`Matcher` and the relay's queue, relay/ratings/queue.py, both
    sort by enqueue time). Each table is a tuple of seeks, its anchor first, then the others in queue
    order; no seek is in two tables. Pure: the same seeks, time and predicate give the same tables.

    The oldest seek anchors a table first (whoever waited longest is served first), at the largest size
    its preference allows among the seeks that fit at that moment; a seek fits when its class is the
    anchor's, its preference allows the size, and it is within both windows of every seek already in the
    group and blocked by none of them (:func:`fits`)."""
    taken: set[str] = set()
    tables: list[tuple[Seek, ...]] = []
    for anchor in queue:
        if anchor.player in taken:
            continue
        for size in anchor.size.sizes:
            group = [anchor]
            for other in queue:
                if len(group) == size:
                    break
                if (
                    other.player not in taken
                    and other is not anchor
                    and other.speed is anchor.speed
                    and other.size.allows(size)
                    and all(fits(other, member, now, blocked) for member in group)
                ):
                    group.append(other)
            if len(group) == size:
                taken.update(s.player for s in group)
                tables.append(tuple(group))
                break
    return tables


def fits(a: Seek, b: Seek, now: float, blocked: Blocked = never_blocked) -> bool:
    """Whether ``a`` and ``b`` may sit at one table at ``now``: neither blocks the other, and their rating
    gap is within both their windows."""
    if blocked(a.player, b.player) or blocked(b.player, a.player):
        return False
    return abs(a.rating - b.rating) <= min(a.window(now), b.window(now))


class Matcher:
    """The seeks of one pairing pool and the tables proposed from them. Single-threaded: the relay calls it
    from its event loop (in a cluster, from the one place that owns the queue)."""

    def __init__(self, *, blocked: Blocked = never_blocked, id_prefix: str = "p") -> None:
        self._blocked = blocked
        self._id_prefix = id_prefix
        self._next_id = 1
        # player -> seek, in arrival order; a seek stays here while offered, until started or dropped.
        self._seeks: dict[str, Seek] = {}
        self._arrival: dict[str, int] = {}
        self._arrivals = 0
        self._offer_of: dict[str, str] = {}
        self._proposals: dict[str, Proposal] = {}
        self._confirmed: dict[str, set[str]] = {}

    # Queries.

    def seek_of(self, player: str) -> Seek | None:
        """The player's seek (waiting or offered), or None."""
        return self._seeks.get(player)

    def offer_of(self, player: str) -> Proposal | None:
        """The proposal the player is asked to confirm, or None."""
        pid = self._offer_of.get(player)
        return None if pid is None else self._proposals[pid]

    def waiting(self, speed: SpeedClass | None = None) -> tuple[Seek, ...]:
        """The seeks not offered a table, oldest first (all classes, or one)."""
        return tuple(s for s in self._queue() if speed is None or s.speed is speed)

    def proposals(self) -> tuple[Proposal, ...]:
        """The proposals awaiting confirmation, oldest first."""
        return tuple(self._proposals.values())

    def confirmed(self, proposal_id: str) -> frozenset[str]:
        """The players who confirmed a pending proposal so far (empty for an unknown one)."""
        return frozenset(self._confirmed.get(proposal_id, ()))

    # Commands.

    def seek(self, seek: Seek, now: float | None = None) -> Outcome:
        """Queue ``seek`` and match at ``now`` (default: ``seek.enqueued_at``). Raises RatingError
        ``seek_guest`` for a guest, ``seek_twice`` if the player already has a seek (any class)."""
        if seek.guest:
            raise RatingError("seek_guest", "sign in to play rated games", status=403)
        if seek.player in self._seeks:
            raise RatingError("seek_twice", "you are already looking for a game", status=409)
        self._seeks[seek.player] = seek
        self._arrivals += 1
        self._arrival[seek.player] = self._arrivals
        changes = _Changes()
        self._step(seek.enqueued_at if now is None else now, changes)
        return changes.outcome()

    def cancel(self, player: str, now: float) -> Outcome:
        """Withdraw the player's seek; if it was offered a table, that proposal fails as if declined.
        Raises RatingError ``no_seek``."""
        if player not in self._seeks:
            raise RatingError("no_seek", "you are not looking for a game", status=409)
        changes = _Changes()
        pid = self._offer_of.get(player)
        if pid is not None:
            self._fail(self._proposals[pid], {player}, changes)
        else:
            self._remove(player)
        self._step(now, changes)
        return changes.outcome()

    def confirm(self, player: str, proposal_id: str, now: float) -> Outcome:
        """The player accepts the proposed table; when every seat has, it is in ``started``. Raises
        RatingError ``not_offered`` if the player is not a seat of that pending proposal or its deadline
        has passed (the next :meth:`tick` drops the seats that had not confirmed)."""
        proposal = self._offered(player, proposal_id, now)
        confirmed = self._confirmed[proposal.id]
        confirmed.add(player)
        changes = _Changes()
        if len(confirmed) == len(proposal.seeks):
            self._close(proposal)
            for p in proposal.players:
                self._remove(p)
            changes.started.append(proposal)
        self._step(now, changes)
        return changes.outcome()

    def decline(self, player: str, proposal_id: str, now: float) -> Outcome:
        """The player refuses the proposed table: their seek is dropped, the other seats wait again. Raises
        RatingError ``not_offered`` as :meth:`confirm`."""
        proposal = self._offered(player, proposal_id, now)
        changes = _Changes()
        self._fail(proposal, {player}, changes)
        self._step(now, changes)
        return changes.outcome()

    def tick(self, now: float) -> Outcome:
        """Let time pass: proposals past their deadline fail (the seats that had not confirmed are dropped,
        the others wait again), then the queues are matched with the windows reached at ``now``."""
        changes = _Changes()
        self._step(now, changes)
        return changes.outcome()

    # Inside.

    def _offered(self, player: str, proposal_id: str, now: float) -> Proposal:
        proposal = self._proposals.get(proposal_id)
        if proposal is None or self._offer_of.get(player) != proposal_id:
            raise RatingError("not_offered", "this table was not offered to you", status=409)
        if now > proposal.deadline:
            raise RatingError("not_offered", "this offer has expired", status=409)
        return proposal

    def _queue(self) -> list[Seek]:
        waiting = [s for p, s in self._seeks.items() if p not in self._offer_of]
        # A requeued seek keeps its place: by enqueue time, then by arrival.
        waiting.sort(key=lambda s: (s.enqueued_at, self._arrival[s.player]))
        return waiting

    def _remove(self, player: str) -> None:
        del self._seeks[player]
        del self._arrival[player]

    def _close(self, proposal: Proposal) -> None:
        del self._proposals[proposal.id]
        del self._confirmed[proposal.id]
        for p in proposal.players:
            del self._offer_of[p]

    def _fail(self, proposal: Proposal, drop: set[str], changes: _Changes) -> None:
        self._close(proposal)
        for p in proposal.players:
            if p in drop:
                self._remove(p)
                changes.dropped.append(p)
            else:
                changes.requeued.append(p)

    def _step(self, now: float, changes: _Changes) -> None:
        for proposal in list(self._proposals.values()):
            if now > proposal.deadline:
                late = set(proposal.players) - self._confirmed[proposal.id]
                self._fail(proposal, late, changes)
        self._match(now, changes)

    def _match(self, now: float, changes: _Changes) -> None:
        for group in match(self._queue(), now, self._blocked):
            changes.offered.append(self._propose(group, now))

    def _propose(self, group: tuple[Seek, ...], now: float) -> Proposal:
        pid = f"{self._id_prefix}{self._next_id}"
        self._next_id += 1
        proposal = Proposal(pid, group[0].speed, tuple(group), now)
        self._proposals[pid] = proposal
        self._confirmed[pid] = set()
        for s in group:
            self._offer_of[s.player] = pid
        return proposal
