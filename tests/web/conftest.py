"""The web client's UI logic runs on CPython here: ``web/`` on sys.path makes ``app`` importable exactly as
in the browser, where ``app/`` and ``engine/`` are unpacked side by side."""

import sys
from pathlib import Path

WEB = Path(__file__).resolve().parents[2] / "web"
if str(WEB) not in sys.path:
    sys.path.insert(0, str(WEB))
