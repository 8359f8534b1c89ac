"""The page's JavaScript globals as Pyodide exposes them in the worker (only those the app uses)."""

from collections.abc import Awaitable

from pyodide.ffi import JsProxy

class _Performance:
    def now(self) -> float: ...
    def mark(self, name: str) -> None: ...

class _Runtime:
    """Set by pyodide-boot.mjs: how this interpreter started."""

    snapshot: bool
    ms: float
    # ms since the worker started, comma-separated: start, runtime loaded, bundle, unpacked, imports, end
    phases: str

class _Date:
    def now(self) -> float: ...

class _SearchParams:
    def get(self, name: str) -> object:
        """The value, or JS null (``pyodide.ffi.jsnull``) when the parameter is absent."""

class URL(JsProxy):
    origin: str
    pathname: str
    search: str
    searchParams: _SearchParams
    @staticmethod
    def new(href: str) -> URL: ...

class MessageEvent:
    data: str

class CloseEvent:
    code: int

class WebSocket(JsProxy):
    readyState: int
    onopen: JsProxy | None
    onmessage: JsProxy | None
    onclose: JsProxy | None
    @staticmethod
    def new(url: str) -> WebSocket: ...
    def send(self, data: str) -> None: ...
    def close(self, code: int = ...) -> None: ...

class _Port(JsProxy):
    onmessage: JsProxy | None

class MessageChannel(JsProxy):
    port1: _Port
    port2: _Port
    @staticmethod
    def new() -> MessageChannel: ...

class _Array:
    def of(self, *items: object) -> JsProxy: ...

class _Json:
    def parse(self, text: str) -> JsProxy: ...

class _Response(JsProxy):
    status: int
    def text(self) -> Awaitable[str]: ...

class _Console:
    def error(self, *data: object) -> None: ...

performance: _Performance

class _Navigator:
    onLine: bool

navigator: _Navigator  # the worker's (WorkerNavigator)
lexioRuntime: _Runtime
lexioBootData: str  # set by pyodide-boot.mjs: the page's state at start (JSON)
lexioConfigRelay: str | None  # set by pyodide-boot.mjs: config.json's relay (None: unread)

def lexioListen(handler: JsProxy) -> None:
    """Set by pyodide-boot.mjs: ``handler`` gets each UI event the page posts (a JSON string)."""

Date: _Date
Array: _Array
JSON: _Json
console: _Console

def postMessage(message: str, transfer: JsProxy = ...) -> None: ...
def fetch(url: str, init: JsProxy = ...) -> Awaitable[_Response]: ...
def setTimeout(handler: JsProxy, timeout: float = ...) -> int: ...
def setInterval(handler: JsProxy, timeout: float = ...) -> int: ...
