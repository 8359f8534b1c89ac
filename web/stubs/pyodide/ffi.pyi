"""Pyodide's foreign function interface (only what the app uses)."""

from collections.abc import Callable

class JsProxy:
    """A JavaScript object seen from Python."""

def create_proxy(obj: Callable[..., object]) -> JsProxy:
    """A JS function calling ``obj``, alive until destroyed (event handlers)."""

def create_once_callable(obj: Callable[[], object]) -> JsProxy:
    """A JS function calling ``obj`` once, then releasing it (timers)."""
