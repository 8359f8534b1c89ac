"""Debian's Chromium: the real binary (not the /usr/bin wrapper) and the flags e2e and benches launch it with.

``playwright install`` cannot work here (no CDN): Playwright drives this binary through ``executable_path``.
"""

from __future__ import annotations

import os

CHROMIUM = os.environ.get("LEXIO_CHROMIUM", "/usr/lib/chromium/chromium")
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
