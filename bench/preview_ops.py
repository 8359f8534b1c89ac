"""Python operations per key of the live preview (issue 28): a figure the machine's load cannot move.

The preview's time in the browser's worker is mostly how many Python operations a key makes (each costs
about a microsecond in a worker that sat idle between keys: web/README.md, issue 28's fifth pass), and the
browser figures move by ±0.2 ms between runs on a shared machine. This counts them instead: the web client
(``web/app``, the engine under it) runs on CPython with the web tests' fake browser doors, on the offline
demo table, through bench/browser.py's key sequence; every bytecode executed in the app and the engine
during each action is counted (``sys.settrace`` opcode events; the fake doors and the standard library are
not counted). Printed per kind of action (the median over the repeats): ``preview_ops_<kind>``.

CPython's bytecode is not Pyodide's (3.14 there) instruction for instruction, but a change that cuts the
count here cuts the work there: compare two commits with this, then confirm in the browser.
"""

from __future__ import annotations

import statistics
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "web"), str(ROOT / "tests" / "web")]

from fake_browser import client_at, ui  # noqa: E402

COUNTED = (str(ROOT / "web" / "app"), str(ROOT / "engine"))
REPEATS = 10


def main() -> int:
    client, _ = client_at("/")
    client.begin("2")
    ui(client, t="focus", id="board")
    state = client.session.state
    letters = [state.rack[i] for i in state.available() if state.rack[i] != "?"][:4]

    def key(k: str) -> Callable[[], None]:
        return lambda: ui(client, t="key", key=k, shift=False, ctrl=False)

    def click(sq: str) -> Callable[[], None]:
        return lambda: ui(client, t="click", sq=sq)

    # bench/browser.py's sequence (preview_steps): the cursor on the source and dropped, then at two
    # starting squares a click, the letters, and Escape (which recalls them).
    sequence: list[tuple[str, Callable[[], None]]] = [("arrow", key("ArrowUp")), ("escape", key("Escape"))]
    for start in ("E6", "H8"):
        sequence.append(("click", click(start)))
        sequence += [(f"letter{n}", key(c)) for n, c in enumerate(letters, 1)]
        sequence.append(("recall", key("Escape")))

    count = [0]

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "opcode":
            count[0] += 1
        return local

    def trace(frame: FrameType, event: str, arg: Any) -> Any:
        if not frame.f_code.co_filename.startswith(COUNTED):
            return None
        frame.f_trace_opcodes = True
        return local

    for _, action in sequence * 3:  # first draws and first computations out of the way
        action()
    ops: dict[str, list[int]] = defaultdict(list)
    for _ in range(REPEATS):
        for kind, action in sequence:
            count[0] = 0
            sys.settrace(trace)
            try:
                action()
            finally:
                sys.settrace(None)
            ops[kind].append(count[0])
    for kind, counts in ops.items():
        print(f"preview_ops_{kind}\t{statistics.median(counts):.0f}\tops")
    every = [c for counts in ops.values() for c in counts]
    print(f"preview_ops_mean\t{statistics.fmean(every):.0f}\tops")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
