"""A player's profile and "my games" as this page knows them (issue 29, point 4; docs/protocol.md, "Profiles
and history"): the relay's answers read into plain values, whatever they hold (a field missing or of the
wrong type becomes a harmless default, never an exception in the worker). Pure Python: the glue
(:mod:`app.glue.profiles`) does the HTTP, :mod:`app.profile_screens` draws what this holds.

A profile's address is ``u/{nickname}``, a head-to-head's ``u/{nickname}?vs={other}``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from app.markup import quote_component, unquote
from app.members import profile_href
from app.rating_chart import ClassRating, Point
from app.rating_chart import read as read_ratings


@dataclass(frozen=True)
class GamePlayer:
    """One seat of a finished game: ``nickname`` when a registered player sat there (their profile's link),
    ``bot`` a computer player's level, ``deleted`` an account deleted since (shown as "deleted player")."""

    seat: int
    name: str
    bot: str | None
    score: int
    nickname: str | None
    deleted: bool = False


@dataclass(frozen=True)
class FinishedGame:
    table: str
    ended_ms: int
    seat: int  # the profile's player's seat
    score: int
    result: str  # win | draw | loss
    players: tuple[GamePlayer, ...]

    @property
    def opponents(self) -> tuple[GamePlayer, ...]:
        return tuple(p for p in self.players if p.seat != self.seat)


@dataclass(frozen=True)
class LiveGame:
    """A signed-in player's game not finished yet (``GET /api/account/games``, ``live``)."""

    table: str
    seat: int
    status: str  # waiting | playing
    your_turn: bool
    players: tuple[GamePlayer, ...]
    # issue 31: whose turn (a name), the turn time, the time left when the relay answered, the last move
    turn_name: str | None = None
    turn_seconds: int = 0
    correspondence: bool = False
    time_left_ms: int | None = None
    last_move: LastMove | None = None


@dataclass(frozen=True)
class LastMove:
    """A live game's last move as everyone saw it: who, ``place`` / ``swap`` / ``pass`` / ``timeout``, the
    main word and points of a placement, the number of tiles of a swap."""

    name: str
    kind: str
    word: str | None = None
    score: int | None = None
    tiles: int | None = None


@dataclass(frozen=True)
class Stats:
    games: int = 0
    wins: int = 0
    average: float | None = None
    best_score: int | None = None
    best_play: tuple[str, int] | None = None
    bingos: int = 0


@dataclass
class ProfileState:
    """The profile on screen: asked for ``nickname`` (as typed in the address), maybe against ``vs``."""

    nickname: str
    vs: str | None = None
    status: str = "loading"  # loading | ok | missing (404 no_such_player) | error (anything else)
    shown_name: str = ""  # the nickname as the player wrote it (the relay's answer)
    created_ms: int | None = None
    stats: Stats = field(default_factory=Stats)
    games: list[FinishedGame] = field(default_factory=list)
    page: int = 0
    more: bool = False
    loading_more: bool = False
    more_error: bool = False  # the next page could not be fetched (said under the table; try again)
    # head-to-head (``vs``): the other player's nickname as written, and the counts
    versus_status: str = "loading"  # loading | ok | missing | error
    other: str = ""
    record: tuple[int, int, int] = (0, 0, 0)  # wins, draws, losses of ``nickname`` against ``other``
    versus_games: list[FinishedGame] = field(default_factory=list)
    compare: str = ""  # the head-to-head field's text
    # issue 30: the number in each class played, and after each rated game (app.rating_chart)
    ratings: dict[str, ClassRating] = field(default_factory=dict)
    rating_history: dict[str, list[Point]] = field(default_factory=dict)


@dataclass
class MyGames:
    """Home's "my games" for a signed-in player: live games first, then the last finished ones."""

    loaded: bool = False
    live: list[LiveGame] = field(default_factory=list)
    recent: list[FinishedGame] = field(default_factory=list)
    more: bool = False
    turn_names: dict[str, str] = field(default_factory=dict)  # table -> the name of the player on turn
    your_turn: int = 0  # issue 31: how many games wait for this player (the title, the app's badge)

    def read(self, data: Mapping[str, object]) -> None:
        """The relay's answer; the live games in its order (the player's turn first, soonest deadline
        first, then newest activity first)."""
        self.loaded = True
        self.live = [g for g in (_live(x) for x in _list(data.get("live"))) if g is not None]
        self.turn_names.update({g.table: g.turn_name for g in self.live if g.turn_name})
        self.your_turn = sum(1 for g in self.live if g.your_turn)
        self.recent = read_games(data.get("recent"))
        self.more = data.get("more") is True


def _int(value: object, default: int = 0) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _str(value: object) -> str:
    return value if isinstance(value, str) else ""


def _list(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def _player(raw: object) -> GamePlayer | None:
    if not isinstance(raw, dict):
        return None
    bot, nick = raw.get("bot"), raw.get("nickname")
    return GamePlayer(
        seat=_int(raw.get("seat"), -1),
        name=_str(raw.get("name")) or "?",
        bot=bot if isinstance(bot, str) and bot else None,
        score=_int(raw.get("score")),
        nickname=nick if isinstance(nick, str) and nick else None,
        deleted=raw.get("deleted") is True,
    )


def _players(raw: object) -> tuple[GamePlayer, ...]:
    return tuple(p for p in (_player(x) for x in _list(raw)) if p is not None)


def _game(raw: object) -> FinishedGame | None:
    if not isinstance(raw, dict) or not _str(raw.get("table")):
        return None
    result = _str(raw.get("result"))
    return FinishedGame(
        table=_str(raw.get("table")),
        ended_ms=_int(raw.get("ended_ms")),
        seat=_int(raw.get("seat"), -1),
        score=_int(raw.get("score")),
        result=result if result in ("win", "draw", "loss") else "loss",
        players=_players(raw.get("players")),
    )


def read_games(raw: object) -> list[FinishedGame]:
    return [g for g in (_game(x) for x in _list(raw)) if g is not None]


def _live(raw: object) -> LiveGame | None:
    if not isinstance(raw, dict) or not _str(raw.get("table")):
        return None
    return LiveGame(
        table=_str(raw.get("table")),
        seat=_int(raw.get("seat"), -1),
        status=_str(raw.get("status")) or "playing",
        your_turn=raw.get("your_turn") is True and raw.get("status") == "playing",
        players=_players(raw.get("players")),
        turn_name=_str(raw.get("turn_name")) or None,
        turn_seconds=_int(raw.get("turn_seconds")),
        correspondence=raw.get("correspondence") is True,
        time_left_ms=_int(raw.get("time_left_ms")) if isinstance(raw.get("time_left_ms"), int) else None,
        last_move=_last_move(raw.get("last_move")),
    )


def _last_move(raw: object) -> LastMove | None:
    if not isinstance(raw, dict) or _str(raw.get("kind")) not in ("place", "swap", "pass", "timeout"):
        return None
    score, tiles = raw.get("score"), raw.get("tiles")
    return LastMove(
        name=_str(raw.get("name")) or "?",
        kind=_str(raw.get("kind")),
        word=_str(raw.get("word")) or None,
        score=_int(score) if isinstance(score, int) else None,
        tiles=_int(tiles) if isinstance(tiles, int) else None,
    )


def read_profile(ps: ProfileState, data: Mapping[str, object]) -> None:
    """``GET /api/users/{nickname}``'s answer (page 0: the profile; a later page: more games)."""
    page = _int(data.get("page"))
    games = read_games(data.get("games"))
    if page == 0:
        ps.games = games
        ps.shown_name = _str(data.get("nickname")) or ps.nickname
        ps.ratings, ps.rating_history = read_ratings(data)
        created = data.get("created_ms")
        ps.created_ms = created if isinstance(created, int) else None
        raw = data.get("stats")
        st = raw if isinstance(raw, dict) else {}
        avg, best, top = st.get("average"), st.get("best_play"), st.get("best_score")
        play = None
        if isinstance(best, dict) and _str(best.get("word")):
            play = (_str(best.get("word")), _int(best.get("score")))
        ps.stats = Stats(
            games=_int(st.get("games")),
            wins=_int(st.get("wins")),
            average=float(avg) if isinstance(avg, int | float) and not isinstance(avg, bool) else None,
            best_score=top if isinstance(top, int) and not isinstance(top, bool) else None,
            best_play=play,
            bingos=_int(st.get("bingos")),
        )
    else:
        known = {g.table for g in ps.games}
        ps.games += [g for g in games if g.table not in known]  # a game ended meanwhile shifts the pages
    ps.page = page
    ps.more = data.get("more") is True
    ps.status = "ok"


def read_versus(ps: ProfileState, data: Mapping[str, object]) -> None:
    """``GET /api/users/{nickname}/versus/{other}``'s answer."""
    ps.other = _str(data.get("other")) or (ps.vs or "")
    ps.record = (_int(data.get("wins")), _int(data.get("draws")), _int(data.get("losses")))
    ps.versus_games = read_games(data.get("games"))
    ps.versus_status = "ok"


def parse_address(path: str, search: str) -> tuple[str, str | None] | None:
    """``/u/{nickname}`` (and ``?vs={other}``) → (nickname, other); None for another address."""
    parts = path.strip("/").split("/")
    if len(parts) != 2 or parts[0] != "u" or not parts[1]:
        return None
    vs = None
    for item in search.lstrip("?").split("&"):
        key, _, value = item.partition("=")
        if key == "vs" and value:
            vs = unquote(value.replace("+", " "))
    return unquote(parts[1]), vs


def address(nickname: str, vs: str | None = None) -> str:
    """The profile's address under the site's base (``u/Alice``, ``u/Alice?vs=Bob``)."""
    return profile_href(nickname) + (f"?vs={quote_component(vs)}" if vs else "")
