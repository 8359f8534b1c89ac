"""Lexio's wire vocabulary (docs/protocol.md), pure and standard library only: the same files in the relay
and in the browser, beside ``engine/``.

- :mod:`wire.client`: every client frame as a frozen type in one closed union (:data:`ClientFrame`), parsed
  in one place (:func:`parse_client_frame`, raising :class:`ProtocolError` with a stable code) and written
  by the same types (``frame.to_json()``).
- :mod:`wire.server`: every server frame, built by one constructor each.
"""

from wire.client import (
    ACTION_TYPES,
    CLIENT_TYPES,
    LEVELS,
    MAX_CHAT_FRAME_TEXT,
    MAX_DEPTH,
    MAX_ID,
    MAX_NAME,
    MAX_RACK,
    MAX_TOKEN,
    MAX_VALUES,
    AddBot,
    Analyse,
    Chat,
    ClientFrame,
    Join,
    Leave,
    Pass,
    Ping,
    Place,
    ProtocolError,
    Rematch,
    RemoveBot,
    Report,
    Resync,
    Start,
    Swap,
    TileIn,
    Watch,
    parse_client_frame,
)

__all__ = [
    "ACTION_TYPES",
    "CLIENT_TYPES",
    "LEVELS",
    "MAX_CHAT_FRAME_TEXT",
    "MAX_DEPTH",
    "MAX_ID",
    "MAX_NAME",
    "MAX_RACK",
    "MAX_TOKEN",
    "MAX_VALUES",
    "AddBot",
    "Analyse",
    "Chat",
    "ClientFrame",
    "Join",
    "Leave",
    "Pass",
    "Ping",
    "Place",
    "ProtocolError",
    "Rematch",
    "RemoveBot",
    "Report",
    "Resync",
    "Start",
    "Swap",
    "TileIn",
    "Watch",
    "parse_client_frame",
]
