"""The your-turn sound (``web/src/turn.wav``), made here rather than fetched: two short soft notes.

Pure and deterministic: :func:`chime_wav` returns the same bytes every time; ``python -m app.chime PATH``
(from ``web/``) writes them, and tests/web checks the shipped file is exactly this.
"""

from __future__ import annotations

import io
import math
import sys
import wave

RATE = 11_025
NOTES = ((880.0, 0.12), (1318.5, 0.18))  # A5 then E6, seconds each


def chime_wav() -> bytes:
    """8-bit mono PCM WAV, ~3.3 KB: each note with a quick attack and an exponential fade."""
    frames = bytearray()
    for freq, secs in NOTES:
        n = int(RATE * secs)
        for i in range(n):
            t = i / RATE
            env = min(1.0, i / 60) * math.exp(-5.0 * t / secs)
            sample = 0.45 * env * math.sin(2 * math.pi * freq * t)
            frames.append(max(0, min(255, round(128 + 127 * sample))))
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(1)
        w.setframerate(RATE)
        w.writeframes(bytes(frames))
    return buf.getvalue()


if __name__ == "__main__":  # pragma: no cover
    with open(sys.argv[1], "wb") as f:
        f.write(chime_wav())
