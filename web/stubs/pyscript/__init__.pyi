"""PyScript's worker-side API (only what the app uses)."""

from collections.abc import Callable

class _Sync:
    """Functions the main thread may call in this worker (``xworker.sync.<name>``)."""

    ui: Callable[[str], None]

class _Window:
    """The main thread's ``window``, reached synchronously (each call is a round trip)."""

    def lexioBoot(self) -> str: ...
    def lexioAttach(self) -> None: ...
    def lexioFlush(self) -> None: ...

sync: _Sync
window: _Window
