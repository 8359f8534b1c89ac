"""Your turn (issue 12, point 6): the title, the sound, the notification, the last seconds said once."""

from __future__ import annotations

import io
import re
import wave
from pathlib import Path

from app.chime import chime_wav
from app.i18n import Translator
from app.signals import SOUND_KEY, TurnSignals, notify_button, sound_button
from app.state import UiState
from web_helpers import T0, run, snapshot, started

import engine as e

FR, EN = Translator("fr"), Translator("en")
WAV = Path(__file__).resolve().parents[2] / "web" / "src" / "turn.wav"


def _seat1_waiting() -> tuple[UiState, e.GameState]:
    state = started()
    ui = UiState()
    ui.enter_table("t1")
    ui.on_frame(snapshot(state, 1), T0)
    ui.conn = "online"
    return ui, state


def _pass_to_seat1(ui: UiState, state: e.GameState, deadline: int = T0 + 60_000) -> e.GameState:
    state, evs = run(state, e.Play(0, e.Pass()))
    ui.on_frame(
        {
            "type": "event",
            "seq": state.version,
            "now": T0,
            "event": e.redact_event(evs[0], 1),
            "clock": {"turn": state.turn, "deadline_ms": deadline, "grace_deadline_ms": None},
        },
        T0,
    )
    return state


def test_title_sound_and_notification_when_the_turn_comes_then_the_title_goes_back() -> None:
    ui, state = _seat1_waiting()
    sig = TurnSignals()
    first = sig.observe(ui, FR, T0)
    assert first.title == "Lexio" and not first.sound and first.notify is None
    state = _pass_to_seat1(ui, state)
    came = sig.observe(ui, FR, T0)
    assert came.title == "▶ À vous — Lexio"
    assert came.sound
    assert came.notify is not None
    assert came.notify[0] == "Lexio : à vous de jouer"
    assert "P0, P1" in came.notify[1] and "60 s" in came.notify[1]
    again = sig.observe(ui, FR, T0 + 1000)  # the same turn, a tick later: nothing new
    assert again.title is None and not again.sound and again.notify is None
    state, evs = run(state, e.Play(1, e.Pass()))
    ui.on_frame(
        {
            "type": "event",
            "seq": state.version,
            "now": T0,
            "event": e.redact_event(evs[0], 1),
            "clock": {"turn": state.turn, "deadline_ms": T0 + 60_000, "grace_deadline_ms": None},
        },
        T0,
    )
    assert sig.observe(ui, FR, T0).title == "Lexio"


def test_a_page_opened_on_ones_own_turn_is_not_a_call_back() -> None:
    state = started()
    ui = UiState()
    ui.enter_table("t1")
    sig = TurnSignals()
    sig.observe(ui, EN, T0)  # nothing yet: connecting
    ui.on_frame(snapshot(state, 0), T0)
    out = sig.observe(ui, EN, T0)
    assert out.title == "▶ Your turn — Lexio" and not out.sound and out.notify is None


def _text(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


def test_muted_no_sound_and_the_choice_is_remembered() -> None:
    sig = TurnSignals.from_storage({SOUND_KEY: "off"})
    assert not sig.sound_on
    assert 'data-on="0"' in sound_button(sig, EN) and "♪ Sound: off" in _text(sound_button(sig, EN))
    ui, state = _seat1_waiting()
    sig.observe(ui, EN, T0)
    _pass_to_seat1(ui, state)
    out = sig.observe(ui, EN, T0)
    assert not out.sound and out.notify is not None  # muted is the sound only
    assert sig.toggle_sound() == "on" and TurnSignals.from_storage({SOUND_KEY: "on"}).sound_on
    assert 'data-on="1"' in sound_button(sig, FR) and "♪ Son : oui" in _text(sound_button(sig, FR))
    # On a phone "Sound:" is hidden from sight, not from screen readers: the name stays the whole text.
    assert '<span class="hdr-word">Son : </span>oui' in sound_button(sig, FR)


def test_the_last_ten_seconds_are_announced_once_per_turn() -> None:
    ui, state = _seat1_waiting()
    sig = TurnSignals()
    sig.observe(ui, EN, T0)
    _pass_to_seat1(ui, state, deadline=T0 + 30_000)
    assert not sig.observe(ui, EN, T0).last_seconds
    assert not sig.observe(ui, EN, T0 + 19_000).last_seconds
    warned = [sig.observe(ui, EN, T0 + ms).last_seconds for ms in (20_000, 21_000, 25_000, 29_000)]
    assert warned == [True, False, False, False]
    assert sig.warning  # kept up (the live region does not change again) until the turn passes


def test_notification_permission_is_asked_only_while_undecided() -> None:
    assert 'id="notify-ask"' in notify_button("default", EN)
    assert notify_button("granted", EN) == "" and notify_button("denied", EN) == ""
    assert notify_button("unsupported", EN) == ""


def test_the_shipped_turn_sound_is_the_generated_chime_and_small() -> None:
    data = WAV.read_bytes()
    assert data == chime_wav()
    assert len(data) < 8_000
    with wave.open(io.BytesIO(data)) as w:
        assert w.getnchannels() == 1 and 0.2 < w.getnframes() / w.getframerate() < 0.5
