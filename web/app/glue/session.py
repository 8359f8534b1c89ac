"""What the glue's parts share: where the page and its relay are (:class:`Address`), what is on screen
beyond the UI state (:class:`Session`), and the next patch to the page (:class:`PagePatch`)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from app.account import AccountState
from app.moderation import ReportState
from app.payloads import encode_patch
from app.playnow import PlayNowState
from app.profile import MyGames

if TYPE_CHECKING:
    from app.chat import ChatState
    from app.glue.doors import Page
    from app.i18n import Translator
    from app.leaderboard_screen import BoardState
    from app.payloads import Params, Patch
    from app.profile import ProfileState
    from app.replay import ReplayState
    from app.signals import TurnSignals
    from app.state import UiState


@dataclass
class Address:
    """Where this page is, and its relay: the links it makes, the socket's and the API's addresses."""

    origin: str  # the page's origin (scheme, host, port)
    base: str  # the site's path: "/", or "/lexio/" when served under a sub-path (web/build.py --base)
    path: str  # the page's path under ``base``, from "/": "/", "/t/ID", "/replay"
    search: str  # the page's query string ("?relay=…"), kept in the links it makes
    relay: str  # the relay's origin (?relay=, else config.json, else this page's origin)

    def kept(self) -> list[str]:
        """The query's parameters that travel with every address (``relay=``, ``perf``…): not a profile's
        ``vs=``, which belongs to the head-to-head's own address."""
        return [p for p in self.search.lstrip("?").split("&") if p and not p.startswith("vs=")]

    def page(self, rest: str) -> str:
        """The address bar for ``rest`` under the site ("" for home, "t/ID", "u/Alice?vs=Bob"), the query
        string kept."""
        path, _, query = rest.partition("?")
        kept = self.kept()
        params = kept + [p for p in query.split("&") if p and p not in kept]
        return f"{self.base}{path}" + (f"?{'&'.join(params)}" if params else "")

    def go(self, rest: str) -> str:
        """Moves to ``rest`` (as :meth:`page` takes it); returns the address bar's new value."""
        url = self.page(rest)
        path, _, query = url[len(self.base) :].partition("?")
        self.path, self.search = "/" + path, f"?{query}" if query else ""
        return url

    def share_link(self, table: str | None) -> str:
        # The relay's address travels with the link only when the page was given one (?relay=).
        kept = "&".join(self.kept())
        return f"{self.origin}{self.base}t/{table}{'?' + kept if 'relay=' in kept else ''}"

    def ws_url(self, table: str) -> str:
        base = self.relay.replace("https://", "wss://", 1).replace("http://", "ws://", 1)
        return f"{base}/ws/{table}"


@dataclass
class Session:
    """What the glue shows beyond the UI state: the language, the turn's signals, the table chat, the
    replay viewer while it is open, the notification permission and the banner's transient notice."""

    state: UiState
    tr: Translator
    signals: TurnSignals
    chat: ChatState
    addr: Address
    notify_perm: str  # Notification.permission: default | granted | denied | unsupported
    replay: ReplayState | None = None  # the replay viewer is open (/replay, /t/ID/replay)
    notice_at: float = 0.0  # when the banner's notice appeared (it leaves by itself: Client.tick)
    account: AccountState = field(default_factory=AccountState)  # the signed-in player, the account screens
    profile: ProfileState | None = None  # a player's profile is open (/u/NICK)
    my_games: MyGames = field(default_factory=MyGames)  # home's "my games" (a signed-in player)
    report: ReportState = field(default_factory=ReportState)  # the report dialog at a table (app.moderation)
    board: BoardState | None = None  # a leaderboard is open (/leaderboard/{speed}: app.leaderboard_screen)
    playnow: PlayNowState = field(default_factory=PlayNowState)  # play now's seek (app.playnow)

    def set_notice(self, code: str, params: Params | None = None) -> None:
        self.state.notice = (code, params or {})
        self.notice_at = time.monotonic()


class PagePatch:
    """The next answer to the page (:class:`app.payloads.Patch`), what the page's regions hold (so that only a
    region whose HTML changed is sent), and the page's ``lexio:*`` storage kept in step with it."""

    def __init__(self, page: Page, storage: dict[str, str], *, mark_actions: bool = False) -> None:
        self.door = page
        self.storage = storage
        self.patch: Patch = {}
        self.cache: dict[str, str] = {}
        self.ts: float | None = None  # the UI event the next patch answers (the page times it)
        self.posted_at: float | None = None  # perf_counter() when the last patch was handed over
        # ?perf: each timed action leaves a performance mark, so that a browser trace (bench/browser.py)
        # can find its task and read the worker thread's CPU time apart from time spent descheduled.
        self.mark_actions = mark_actions

    def write(self, region: str, html: str) -> None:
        if self.cache.get(region) != html:
            self.cache[region] = html
            self.patch.setdefault("r", {})[region] = html

    def attr(self, element: str, name: str, value: str) -> None:
        self.patch.setdefault("a", []).append([element, name, value])

    def store(self, key: str, value: str | None) -> None:
        self.patch.setdefault("store", {})[key] = value
        if value is None:
            self.storage.pop(key, None)
        else:
            self.storage[key] = value

    def mark(self, name: str) -> None:
        if self.mark_actions:
            self.door.mark(name)

    def send(self) -> None:
        if self.ts is not None:
            # The first patch after a UI event answers it (the page times event → answer from this).
            self.patch["ts"], self.ts = self.ts, None
        if self.patch:
            text = "lexio:" + encode_patch(self.patch)
            # The page has its answer from here (see Renderer.timed); fire and forget: the worker never
            # waits for the main thread to paint.
            self.posted_at = time.perf_counter()
            self.mark("lexio-handover")
            self.door.post(text)
            self.patch = {}
