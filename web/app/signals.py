"""Calling a player back when the turn comes (issue 12, point 6): the tab title, a sound, a system
notification, and the countdown's last seconds said once to screen readers.

Pure: :class:`TurnSignals` watches the UI state after each frame or tick and says what the page should do;
the glue (web/src/main.py) turns that into a patch (``title``, ``sound``, ``notify``) that the page applies
(index.html), where ``document.hidden`` and ``Notification.permission`` are known.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from app.i18n import Translator
from app.state import UiState
from app.timing import effective_deadline, remaining_ms

LAST_SECONDS_MS = 10_000
SOUND_KEY = "lexio:sound"  # localStorage: "off" when muted; anything else (or nothing) is on


@dataclass
class Signals:
    """What to do now: a new title (None: unchanged), play the sound, raise a notification (title, body)."""

    title: str | None = None
    sound: bool = False
    notify: tuple[str, str] | None = None
    last_seconds: bool = False


@dataclass
class TurnSignals:
    sound_on: bool = True
    _was_mine: bool | None = None  # None: nothing seen yet (a page opened on one's own turn is no news)
    _title: str = ""
    # the turn (started_ms, seat) already warned about
    _warned_turn: tuple[int | None, int | None] | None = field(default=None)
    warning: bool = False  # the last-seconds warning is up for the current turn

    @staticmethod
    def from_storage(storage: dict[str, str]) -> TurnSignals:
        return TurnSignals(sound_on=storage.get(SOUND_KEY) != "off")

    def toggle_sound(self) -> str:
        """Mute or unmute; returns the value to store under :data:`SOUND_KEY`."""
        self.sound_on = not self.sound_on
        return "on" if self.sound_on else "off"

    def observe(self, state: UiState, tr: Translator, server_now: int) -> Signals:
        out = Signals()
        mine = state.my_turn and not state.demo
        title = tr.t("title_your_turn") if mine else tr.t("title_plain")
        if title != self._title:
            self._title = out.title = title
        if mine and self._was_mine is False:
            out.sound = self.sound_on
            left = remaining_ms(effective_deadline(state.clock), server_now)
            out.notify = (tr.t("notify_title"), tr.t("notify_body", names=_names(state), seconds=_secs(left)))
        if state.view is not None:
            self._was_mine = mine
        turn_key = (state.view or {}).get("turn_started_ms"), (state.view or {}).get("turn")
        if not mine:
            self.warning = False
        elif turn_key != self._warned_turn:
            self.warning = False
            left = remaining_ms(effective_deadline(state.clock), server_now)
            if left is not None and 0 < left <= LAST_SECONDS_MS and not state.cut_off:
                self._warned_turn = turn_key
                self.warning = out.last_seconds = True
        return out

    def forget(self) -> None:
        """Left the table: the next table's first view is no news either."""
        self._was_mine = None
        self.warning = False


def _secs(left: int | None) -> int | str:
    return "?" if left is None else max(0, (left + 999) // 1000)


def _names(state: UiState) -> str:
    return ", ".join(str(s.get("name", "?")) for s in (state.view or {}).get("seats") or ())


def sound_button(sig: TurnSignals, tr: Translator) -> str:
    """The header's mute switch; its text says the state (no emoji: not every system has the font)."""
    on = sig.sound_on
    # "♪ Sound: on": on a phone "Sound:" is said to screen readers only (lexio.css), so the header fits.
    label = tr.t("sound_on" if on else "sound_off")
    head, _, word = label.rpartition(" ")
    mark, _, what = head.partition(" ")
    text = f'{mark} <span class="hdr-word">{what} </span>{word}' if what else label
    return (
        f'<button type="button" id="sound-toggle" data-act="sound" data-on="{"1" if on else "0"}" '
        f'title="{tr.t("sound_hint")}">{text}</button>'
    )


def last_seconds_text(tr: Translator) -> str:
    return tr.t("last_seconds", n=LAST_SECONDS_MS // 1000)


def notify_button(permission: str, tr: Translator) -> str:
    """Offered while the browser has not been asked yet; the page asks on click (a user gesture)."""
    if permission != "default":
        return ""
    return f'<button type="button" id="notify-ask" data-act="notify-ask">{tr.t("notify_ask")}</button>'
