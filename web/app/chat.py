"""The table chat in the page (issue 12, point 5; docs/protocol.md "Table chat"): messages, the draft, local
mutes, and its HTML. Pure; the glue routes ``chat`` / ``chat_history`` frames and chat answers here.

Plain text only: every name and text is escaped, nothing is made into a link. Seats write the seats'
channel, watchers the watchers' one; both are shown apart, and a seat may hide the watchers'.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

import wire
from app.i18n import Translator
from app.markup import escape

if TYPE_CHECKING:
    from app.payloads import ChatMessage, ClientFrame, Notice, ServerFrame

MAX_CHARS = 200
KEEP = 200  # messages kept in the page (the relay sends the last 100 per channel on each welcome)
ID_PREFIX = "chat-"
MUTE_KEY = "lexio:chat-mute"  # localStorage: JSON list of muted names
WATCHERS_KEY = "lexio:chat-watchers"  # "off": a seat hides the watchers' channel
REGIONS = ("t-chat-log", "t-chat-form")


def _e(value: object) -> str:
    return escape(str(value), quote=True)


@dataclass
class ChatState:
    messages: list[ChatMessage] = field(default_factory=list)
    draft: str = ""
    sent: int = 0  # bumped on each send: the form is rendered afresh (an empty field)
    error: Notice | None = None
    muted: set[str] = field(default_factory=set)
    show_watchers: bool = True
    rev: int = 0  # bumped on every change: the glue re-renders only then
    _next: int = 0

    @staticmethod
    def from_storage(storage: Mapping[str, str]) -> ChatState:
        try:
            muted = {str(n) for n in json.loads(storage.get(MUTE_KEY) or "[]")}
        except (ValueError, TypeError):
            muted = set()
        return ChatState(muted=muted, show_watchers=storage.get(WATCHERS_KEY) != "off")

    def reset(self) -> None:
        """A new table: its history comes with the welcome."""
        self.messages, self.error, self.draft = [], None, ""
        self.rev += 1

    # -- frames ------------------------------------------------------------------------------------------
    def on_frame(self, frame: ServerFrame) -> bool:
        """Take a chat frame, or an answer to a chat frame; False: not the chat's."""
        kind = frame.get("type")
        self.rev += 1
        if kind == "chat_history":
            self.messages = []
            for m in frame.get("messages") or ():
                self._add(m)
            return True
        if kind == "chat":
            self._add(frame.get("message"))
            return True
        fid = frame.get("id")
        if isinstance(fid, str) and fid.startswith(ID_PREFIX) and kind in ("ack", "error"):
            if kind == "error":
                params = dict(frame.get("params") or {})
                retry_ms = params.get("retry_ms")
                if isinstance(retry_ms, int | float | str):
                    params["seconds"] = max(1, (int(retry_ms) + 999) // 1000)
                self.error = (str(frame.get("code", "internal_error")), params)
            return True
        return False

    def _add(self, m: ChatMessage | None) -> None:
        mid = m.get("id") if isinstance(m, dict) else None
        if m is None or not isinstance(mid, int):
            return
        if any(x.get("id") == mid for x in self.messages[-50:]):
            return  # seen (a history after a reconnect overlaps the live ones)
        self.messages.append(m)
        self.messages.sort(key=lambda x: x.get("id", 0))
        del self.messages[:-KEEP]

    # -- actions -----------------------------------------------------------------------------------------
    def compose(self, watcher_name: str | None = None) -> ClientFrame | None:
        """The frame for the draft, or None (and an error said) when it cannot go."""
        self.rev += 1
        text = " ".join(self.draft.split())
        if not text:
            return None
        if len(text) > MAX_CHARS:
            self.error = ("chat_too_long", {"max": MAX_CHARS})
            return None
        self._next += 1
        chat = wire.Chat(f"{ID_PREFIX}{self._next}", text, watcher_name or None)
        frame = cast("ClientFrame", chat.to_json())
        self.draft, self.error = "", None
        self.sent += 1
        return frame

    def toggle_mute(self, name: str) -> str:
        """Mute or unmute a person's messages (this browser only); returns the value to store."""
        self.muted ^= {name}
        self.rev += 1
        return json.dumps(sorted(self.muted), ensure_ascii=False)

    def toggle_watchers(self) -> str:
        self.show_watchers = not self.show_watchers
        self.rev += 1
        return "on" if self.show_watchers else "off"


# -- HTML -------------------------------------------------------------------------------------------------
def panel() -> str:
    """The chat's two regions (re-rendered apart: typing never loses the caret), titled by its container:
    a drawer at the table, a card of its own elsewhere (:func:`skeleton`)."""
    return (
        '<div class="chat" id="t-chat" data-testid="chat">'
        '<div id="t-chat-log"></div><div id="t-chat-form"></div></div>'
    )


def skeleton(tr: Translator) -> str:
    """The chat as a card of its own (waiting room, end screen)."""
    return (
        '<section class="card chat-card" aria-labelledby="chat-title">'
        f'<h2 id="chat-title">{_e(tr.t("chat"))}</h2>{panel()}</section>'
    )


def _line(m: ChatMessage, tr: Translator, me: str | None) -> str:
    name = m.get("name")
    shown = str(name) if name else tr.t("chat_anonymous")
    mute = ""
    if name and name != me:
        mute = (
            f'<button type="button" class="link" data-act="chat-mute" data-arg="{_e(name)}" '
            f'aria-label="{_e(tr.t("chat_mute_name", name=name))}">{_e(tr.t("chat_mute"))}</button>'
        )
    return (
        f'<li data-testid="chat-msg" data-channel="{_e(m.get("channel", ""))}">'
        f'<b class="who">{_e(shown)}</b> <span class="text">{_e(m.get("text", ""))}</span> {mute}</li>'
    )


def log(chat: ChatState, tr: Translator, *, seated: bool, me: str | None) -> str:
    shown = [m for m in chat.messages if m.get("name") not in chat.muted]
    seats = [m for m in shown if m.get("channel") == "seats"]
    watchers = [m for m in shown if m.get("channel") == "watchers"]
    parts = [
        f'<h3 class="chat-sub">{_e(tr.t("chat_seats"))}</h3>'
        f'<div role="log" aria-label="{_e(tr.t("chat_seats"))}">'
        '<ol class="chat-log" data-testid="chat-seats">'
        + "".join(_line(m, tr, me) for m in seats)
        + "</ol></div>"
    ]
    if not seats:
        parts.append(f'<p class="muted chat-empty">{_e(tr.t("chat_none"))}</p>')
    if seated:
        label = tr.t("chat_hide_watchers" if chat.show_watchers else "chat_show_watchers")
        parts.append(
            f'<button type="button" id="chat-watchers" data-act="chat-watchers" '
            f'aria-expanded="{"true" if chat.show_watchers else "false"}">{_e(label)}</button>'
        )
    if chat.show_watchers or not seated:
        parts.append(
            f'<h3 class="chat-sub">{_e(tr.t("chat_watchers"))}</h3>'
            f'<div role="log" aria-label="{_e(tr.t("chat_watchers"))}"><ol class="chat-log watchers" '
            'data-testid="chat-watchers">' + "".join(_line(m, tr, me) for m in watchers) + "</ol></div>"
        )
    if chat.muted:
        items = "".join(
            f'<li>{_e(n)} <button type="button" class="link" data-act="chat-mute" data-arg="{_e(n)}">'
            f"{_e(tr.t('chat_unmute'))}</button></li>"
            for n in sorted(chat.muted)
        )
        parts.append(f'<p class="muted">{_e(tr.t("chat_muted"))}</p><ul class="chat-muted">{items}</ul>')
    return "".join(parts)


def form(chat: ChatState, tr: Translator, *, seated: bool) -> str:
    where = tr.t("chat_to_seats" if seated else "chat_to_watchers")
    err = ""
    if chat.error is not None:
        code, params = chat.error
        err = f'<p class="error" role="alert" data-testid="chat-error">{_e(tr.error(code, params))}</p>'
    return (
        f'<form id="chat-form" class="row" data-n="{chat.sent}" onsubmit="return false">'
        f'<label for="chat-input" class="sr">{_e(where)}</label>'
        f'<input id="chat-input" name="chat" autocomplete="off" data-bind="chat" placeholder="{_e(where)}" '
        f'aria-describedby="chat-hint">'
        f'<button type="submit" id="chat-send" data-act="chat-send">{_e(tr.t("chat_send"))}</button></form>'
        f'<p class="hint muted" id="chat-hint">{_e(tr.t("chat_hint", n=MAX_CHARS))}</p>{err}'
    )
