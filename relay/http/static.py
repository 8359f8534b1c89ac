"""Serving the built web app: MIME types, precompressed siblings, cache policy, SPA fallback.

Only files under the static root are served; dotfiles and anything that resolves outside it are 404. The
word list lives in ``lexicons/`` (outside the static root) and no route reads it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

from aiohttp import web

MIME: Final[dict[str, str]] = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".map": "application/json",
    ".wasm": "application/wasm",
    ".wav": "audio/wav",
    ".py": "text/x-python; charset=utf-8",
    ".toml": "application/toml",
    ".txt": "text/plain; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".webp": "image/webp",
    ".woff2": "font/woff2",
    ".woff": "font/woff",
    ".zip": "application/zip",
    ".whl": "application/zip",
    ".tar": "application/x-tar",
    ".data": "application/octet-stream",
    ".webmanifest": "application/manifest+json",
}
IMMUTABLE: Final = "public, max-age=31536000, immutable"
NO_CACHE: Final = "no-cache"
# /runtime/<name>-<version>/... (e.g. /runtime/pyodide-314.0.7/pyodide.asm.wasm) never changes in place.
_VERSIONED: Final = re.compile(r"^runtime/[A-Za-z0-9_.+-]*-\d+(?:\.\d+)*[A-Za-z0-9_.+-]*/")
API_PREFIXES: Final = ("api/", "ws/", "healthz", "metrics")

PLACEHOLDER = """<!doctype html><meta charset="utf-8"><title>Lexio relay</title>
<p>Lexio relay is running, but the web app is not built. Run <code>make web</code> or pass
<code>--static DIR</code>.</p>
"""


def cache_control(rel: str) -> str:
    return IMMUTABLE if _VERSIONED.match(rel) else NO_CACHE


def content_type(path: Path) -> str | None:
    return MIME.get(path.suffix.lower())


class StaticSite:
    """``forbidden``: folders or files never served even if the static root contains them (the word lists
    and their caches), in case a host points ``--static`` at the repository itself."""

    def __init__(self, root: Path | None, forbidden: tuple[Path, ...] = ()) -> None:
        self.root = root.resolve() if root is not None and root.is_dir() else None
        self.forbidden = tuple(p.resolve() for p in forbidden)

    def _resolve(self, rel: str) -> Path | None:
        if self.root is None:
            return None
        parts = [p for p in rel.split("/") if p]
        if any(p.startswith(".") or "\\" in p or "\x00" in p for p in parts):
            return None
        candidate = self.root.joinpath(*parts) if parts else self.root / "index.html"
        try:
            resolved = candidate.resolve()
        except (OSError, RuntimeError):
            return None
        if not resolved.is_relative_to(self.root):
            return None
        if any(resolved == f or resolved.is_relative_to(f) for f in self.forbidden):
            return None
        if resolved.is_dir():
            resolved = resolved / "index.html"
        return resolved if resolved.is_file() else None

    def _file(self, path: Path, rel: str) -> web.FileResponse:
        response = web.FileResponse(path)
        ctype = content_type(path)
        if ctype is not None:
            response.headers["Content-Type"] = ctype
        response.headers["Cache-Control"] = NO_CACHE if path.name == "index.html" else cache_control(rel)
        response.headers["Cross-Origin-Resource-Policy"] = "same-origin"
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response

    async def handle(self, request: web.Request) -> web.StreamResponse:
        if request.method not in ("GET", "HEAD"):
            raise web.HTTPMethodNotAllowed(request.method, ["GET", "HEAD"])
        rel = request.match_info.get("path", "")
        if rel.startswith(API_PREFIXES):
            return web.json_response({"code": "not_found", "message": f"no such endpoint /{rel}"}, status=404)
        found = self._resolve(rel)
        if found is not None:
            return self._file(found, rel)
        last = rel.rsplit("/", 1)[-1]
        if "." in last:
            return web.json_response({"code": "not_found", "message": "no such file"}, status=404)
        # SPA route (/, /t/{id}, ...): the app's index.html decides.
        index = self._resolve("index.html")
        if index is not None:
            return self._file(index, "index.html")
        return web.Response(
            text=PLACEHOLDER,
            content_type="text/html",
            headers={"Cache-Control": NO_CACHE, "Cross-Origin-Resource-Policy": "same-origin"},
        )
