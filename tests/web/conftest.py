"""The web client's UI logic runs on CPython here: ``web/`` on sys.path makes ``app`` importable exactly as
in the browser, where ``app/`` and ``engine/`` are unpacked side by side."""

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

WEB = Path(__file__).resolve().parents[2] / "web"
if str(WEB) not in sys.path:
    sys.path.insert(0, str(WEB))

# Every region the glue skips because its inputs did not change is drawn anyway in these tests and must come
# out the same (app.glue.rendering.Renderer.keyed): a key that misses an input fails the test that shows it.
import app.glue.rendering  # noqa: E402

app.glue.rendering.CHECK_KEYS = True


@pytest.fixture(autouse=True)
def _close_pages() -> Iterator[None]:
    """Every fake page a test opened (tests/web/fake_browser.py) is closed after it."""
    from fake_browser import MADE

    yield
    while MADE:
        MADE.pop().close()
