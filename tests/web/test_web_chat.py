"""The table chat in the page (issue 12, point 5): frames in, the draft out, plain text, local mutes."""

from __future__ import annotations

from app import chat
from app.i18n import Translator

EN, FR = Translator("en"), Translator("fr")


def _msg(
    i: int, text: str, *, channel: str = "seats", name: str | None = "Bob", seat: int | None = 1
) -> dict:  # type: ignore[type-arg]
    return {"id": i, "channel": channel, "seat": seat, "name": name, "text": text, "at": 0}


def test_history_then_live_messages_in_order_without_duplicates() -> None:
    c = chat.ChatState()
    assert c.on_frame({"type": "chat_history", "messages": [_msg(2, "b"), _msg(1, "a")]})
    assert c.on_frame({"type": "chat", "message": _msg(3, "c")})
    assert c.on_frame({"type": "chat", "message": _msg(3, "c")})  # seen already
    assert [m["text"] for m in c.messages] == ["a", "b", "c"]
    assert not c.on_frame({"type": "event", "seq": 4})
    assert not c.on_frame({"type": "error", "id": "p3", "code": "not_your_turn"})  # the game's


def test_a_hostile_message_is_shown_as_text_and_never_as_a_link() -> None:
    c = chat.ChatState()
    hostile = '<img src=x onerror="alert(1)"> http://evil.example <b>&amp;'
    c.on_frame({"type": "chat", "message": _msg(1, hostile, name="<i>Eve</i>")})
    html = chat.log(c, EN, seated=True, me="Ann")
    assert "<img" not in html and "<b>&amp;" not in html and "<i>Eve" not in html and "<a " not in html
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in html and "&lt;i&gt;Eve&lt;/i&gt;" in html


def test_the_draft_becomes_a_frame_trimmed_and_200_characters_at_most() -> None:
    c = chat.ChatState()
    c.draft = "  salut \n tout le monde "
    frame = c.compose()
    assert frame == {"type": "chat", "id": "chat-1", "text": "salut tout le monde"}
    assert c.draft == "" and c.sent == 1
    c.draft = "x" * 201
    assert c.compose() is None and c.error == ("chat_too_long", {"max": 200})
    assert "At most 200 characters." in chat.form(c, EN, seated=True)
    c.draft = "   "
    assert c.compose() is None
    c.draft = "hi"
    assert c.compose("Zoé") == {"type": "chat", "id": "chat-2", "text": "hi", "name": "Zoé"}


def test_refusals_are_said_in_the_chat_with_their_wait() -> None:
    c = chat.ChatState()
    assert c.on_frame(
        {"type": "error", "id": "chat-4", "code": "chat_rate_limited", "params": {"retry_ms": 6500}}
    )
    assert "try again in 7 s" in chat.form(c, EN, seated=True)
    assert c.on_frame({"type": "error", "id": "chat-5", "code": "chat_closed", "params": {}})
    assert "once the game has started" in chat.form(c, EN, seated=False)
    assert c.on_frame({"type": "ack", "id": "chat-6", "seq": 3})


def test_watchers_messages_are_apart_and_a_seat_may_hide_them_and_mute_a_person() -> None:
    c = chat.ChatState()
    c.on_frame(
        {
            "type": "chat_history",
            "messages": [
                _msg(1, "hello", name="Bob"),
                _msg(2, "go Bob", channel="watchers", name=None, seat=None),
                _msg(3, "mine", name="Ann", seat=0),
            ],
        }
    )
    html = chat.log(c, EN, seated=True, me="Ann")
    seats_part, watchers_part = html.split('data-testid="chat-watchers"', 1)
    assert "hello" in seats_part and "go Bob" not in seats_part and "go Bob" in watchers_part
    assert "watcher" in watchers_part  # the anonymous watcher's name
    assert 'data-arg="Bob"' in html and 'data-arg="Ann"' not in html  # nobody mutes themself
    stored = c.toggle_watchers()
    assert stored == "off" and "go Bob" not in chat.log(c, EN, seated=True, me="Ann")
    assert "go Bob" in chat.log(c, EN, seated=False, me=None)  # a watcher always sees its channel
    assert c.toggle_mute("Bob") == '["Bob"]'
    html = chat.log(c, EN, seated=True, me="Ann")
    assert "hello" not in html and "mine" in html and "unmute" in html
    again = chat.ChatState.from_storage({chat.MUTE_KEY: '["Bob"]', chat.WATCHERS_KEY: "off"})
    assert again.muted == {"Bob"} and not again.show_watchers
    assert chat.ChatState.from_storage({chat.MUTE_KEY: "{broken"}).muted == set()


def test_the_form_says_where_the_message_goes() -> None:
    c = chat.ChatState()
    assert "Message à la table" in chat.form(c, FR, seated=True)
    assert "Message to the watchers" in chat.form(c, EN, seated=False)
