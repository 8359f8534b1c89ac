"""The shapes of the JSON the page exchanges (docs/protocol.md): the relay's frames and views, the HTTP
API's answers, the page's UI events and the patches sent back to it.

For the type checker only: every module imports this under ``if TYPE_CHECKING:`` so that it costs the
browser's start nothing (no module to load, no class to build). The keys are those the client reads; a
frame is never validated against them at run time (the code keeps its own checks on what it reads).
"""

from __future__ import annotations

import json
from typing import TypedDict

# An error's or a notice's parameters, as the relay sends them (strings and numbers).
Params = dict[str, object]
# A message code and its parameters (an error, a notice): shown through ``Translator.error``.
Notice = tuple[str, Params]


class Tile(TypedDict):
    """A tile on the board, or one of a placement (``engine.Tile.to_dict`` without its value)."""

    sq: str
    letter: str
    blank: bool


class SeatView(TypedDict, total=False):
    """A seat as a view (``engine.view``) or a table summary (``GET /api/tables``) shows it."""

    seat: int
    name: str
    bot: str | None  # the computer player's level; None for a person
    score: int
    rack_size: int
    rack: str | None  # face up once the game has ended
    connected: bool
    account: bool  # a signed-in player's seat (the name is their nickname; absent for a guest)


class Reserve(TypedDict):
    """The seat's reserve of refused tries (``engine.view``)."""

    tries: int
    next_refill_ms: int | None


class Clock(TypedDict, total=False):
    turn: int | None
    deadline_ms: int | None
    grace_deadline_ms: int | None


class GameEvent(TypedDict, total=False):
    """A journal event as redacted for one seat (``engine.redact_event``); keys by event type."""

    schema: int
    type: str
    at: int
    seat: int
    name: str  # seat_joined
    bot: str | None
    tiles: list[Tile]  # placed; rejected (own seat only)
    words: list[str]
    score: int
    rack_size: int
    bag_size: int
    rack: str  # the seat's own new rack
    count: int  # swapped
    returned: str
    unknown: list[str]  # rejected (own seat only)
    # game_ended
    reason: str
    adjustments: list[int]
    racks: list[str]
    scores: list[int]
    winners: list[int]


class View(TypedDict, total=False):
    """A seat's (or a spectator's) snapshot of the table (``engine.view``)."""

    schema: int
    version: int
    variant: str
    status: str  # waiting | playing | ended
    turn_seconds: int
    you: int | None
    rack: str | None
    seats: list[SeatView]
    board: list[Tile]
    bag_size: int
    turn: int | None
    turn_started_ms: int | None
    scoreless_turns: int
    reserve: Reserve | None
    journal: list[GameEvent]
    result: GameEvent | None  # the game_ended event
    last_label: str  # the replay viewer's own: what the last-move mark means on its board


class Presence(TypedDict):
    seat: int
    connected: bool


class Rematch(TypedDict, total=False):
    """The new table proposed for the same players (``rematch`` frame)."""

    table: str
    link: str | None
    by: int | None


class AnalysisPlay(TypedDict, total=False):
    kind: str  # place | swap | pass
    notation: str
    words: list[str]
    tiles: str
    score: int
    equity: float


class AnalysisMove(TypedDict, total=False):
    """One entry of a seat's analysis (``analysis`` frame, ``POST /api/tables/{id}/analysis``)."""

    turn: int
    rack: str  # the rack the seat held before the move (its own analysis only)
    lost: float
    played: AnalysisPlay
    best: AnalysisPlay


class ChatMessage(TypedDict, total=False):
    id: int
    channel: str  # seats | watchers
    seat: int
    name: str | None
    text: str


class ServerFrame(TypedDict, total=False):
    """Any frame from the relay; which keys come depends on ``type`` (docs/protocol.md)."""

    type: str
    id: str
    now: int
    seq: int
    # welcome
    table: str
    seat: int | None
    token: str
    # snapshot
    view: View
    clock: Clock
    presence: list[Presence]
    watchers: int
    rematch: Rematch | None
    # event
    event: GameEvent
    # presence; watchers
    seats: list[Presence]
    count: int
    # rejected
    words: list[str]
    reserve: Reserve
    # error
    code: str
    params: Params
    # rematch
    link: str | None
    by: int | None
    # analysis
    moves: list[AnalysisMove]
    # chat, chat_history
    message: ChatMessage
    messages: list[ChatMessage]


class ClientFrame(TypedDict, total=False):
    """A frame this page sends (docs/protocol.md, "Client frames")."""

    type: str
    id: str
    name: str
    token: str
    seat: int
    level: str
    tiles: list[Tile] | str  # place: the tiles; swap: the letters
    text: str
    since: int
    resent: bool


class TableSummary(TypedDict, total=False):
    """``GET /api/tables`` (each entry) and ``GET /api/tables/{id}``; the lobby's placeholders while one is
    fetched (``loading``) or after a 404 (``missing``)."""

    id: str
    variant: str
    status: str
    public: bool
    turn_seconds: int
    created_ms: int
    free: int
    seats: list[SeatView]
    rematch: Rematch | None
    loading: bool
    missing: bool


class LetterScore(TypedDict, total=False):
    sq: str
    letter: str
    value: int
    letter_mult: int
    blank: bool
    new: bool


class WordScore(TypedDict, total=False):
    word: str
    main: bool
    squares: list[str]
    letters: list[LetterScore]
    word_mult: int
    crossing: bool
    score: int


class Breakdown(TypedDict, total=False):
    words: list[WordScore]
    tiles: int
    bingo: int
    total: int


class PreviewError(TypedDict, total=False):
    code: str
    message: str
    params: Params


class Preview(TypedDict, total=False):
    """``engine.preview``: what the pending placement would score, or why it could not."""

    ok: bool
    breakdown: Breakdown
    error: PreviewError


class UiEvent(TypedDict, total=False):
    """One DOM event as the page's bootstrap posts it (web/src/index.html); ``t`` says which."""

    t: str  # click | key | bind | file | drop | focus | nav
    ts: float  # when it happened (the page's clock): the patch that answers it carries it back
    # click (and Enter in a field)
    act: str | None
    arg: str | None
    rack: str | None
    sq: str | None
    name: str | None
    link: str | None
    # key
    key: str
    shift: bool
    ctrl: bool
    # bind
    bind: str
    value: str
    checked: bool
    type: str  # input | change
    # file
    text: str
    too_big: bool
    # drop
    from_rack: str | None
    from_sq: str | None
    to_sq: str | None
    to_rack: str | None
    # focus; webauthn (the page's answer to a ceremony: its id, the credential's toJSON() or the error)
    id: str
    ok: bool
    credential: dict[str, object]
    error: str
    # push (issue 31: the page's answer about turn reminders; its id and op, as for webauthn above)
    op: str
    subscribed: bool
    subscription: dict[str, object]
    endpoint: str | None
    permission: str
    # nav
    href: str


class Patch(TypedDict, total=False):
    """One answer to the page, applied by ``window.lexioPatch`` (web/src/index.html)."""

    r: dict[str, str]  # region id -> its inner HTML
    c: dict[str, str]  # board square -> its cell's outer HTML
    a: list[list[str]]  # [element id, attribute, value]
    store: dict[str, str | None]  # localStorage (None: remove)
    focus: str
    focus_fallback: str
    refocus: str
    push: str  # history.pushState
    copy: str  # to the clipboard
    lang: str
    title: str
    badge: int  # issue 31: games waiting for the player (navigator.setAppBadge; 0: clearAppBadge)
    sound: int
    notify: list[str]  # [title, body]
    ts: float
    perf: list[float | None]
    ready: int
    boot: str
    webauthn: dict[str, object]  # a passkey ceremony for the page: {"id", "op": create|get, "publicKey"}
    webpush: dict[str, object]  # issue 31, for the page: {"id", "op": state|subscribe|unsubscribe, "key"}
    download: list[str]  # [file name, text]: saved by the browser (the recovery codes)


# Between a patch's JSON and each region's or square's HTML (see encode_patch): never in the HTML we draw.
HTML_SEPARATOR = "\x00"
_compact = json.JSONEncoder(separators=(",", ":"), check_circular=False).encode  # a patch is a tree


def encode_patch(patch: Patch) -> str:
    """The text ``window.lexioPatch`` (web/src/index.html) reads: the patch's JSON, then each region's and
    square's HTML raw, each after a NUL, their names in order under ``"R"`` and ``"C"``. JSON-escaping a
    keystroke's two kilobytes of HTML took a tenth of the worker's time for it. HTML holding a NUL (none of
    ours: text goes through app.markup.escape) makes the whole patch JSON."""
    regions, cells = patch.get("r"), patch.get("c")
    if not regions and not cells:
        return _compact(patch)
    html = [*(regions or {}).values(), *(cells or {}).values()]
    body = HTML_SEPARATOR.join(html)
    if body.count(HTML_SEPARATOR) != len(html) - 1:
        return _compact(patch)
    head: dict[str, object] = dict(patch)
    head.pop("r", None)
    head.pop("c", None)
    if regions:
        head["R"] = list(regions)
    if cells:
        head["C"] = list(cells)
    return _compact(head) + HTML_SEPARATOR + body
