"""The installable app's build output (issue 31): the web app manifest and its icons, and the service
worker's precache list — every file it names exists with the hash it says — whose cache name changes when a
file's content does."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
import shutil
import struct
from pathlib import Path
from typing import Any

import pytest

from relay.http.static import cache_control, content_type

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "web" / "dist"
spec = importlib.util.spec_from_file_location("lexio_web_build_installable", ROOT / "web" / "build.py")
assert spec is not None and spec.loader is not None
build: Any = importlib.util.module_from_spec(spec)
spec.loader.exec_module(build)


def _built() -> Path:
    if not (DIST / "sw.js").exists():
        pytest.skip("web/dist not built with the service worker (make web)")
    return DIST


def _precache(sw: str) -> tuple[str, list[list[str]]]:
    cache = re.search(r'const CACHE = "([^"]+)";', sw)
    listing = re.search(r"const PRECACHE = (\[.*?\]\]);", sw)
    assert cache is not None and listing is not None
    return cache.group(1), json.loads(listing.group(1))


def test_the_manifest_names_the_app_and_its_icons() -> None:
    dist = _built()
    m = json.loads((dist / "app.webmanifest").read_text(encoding="utf-8"))
    assert m["short_name"] == "Lexio" and m["name"].startswith("Lexio")
    assert m["start_url"] == m["scope"] == m["id"] == "/"
    assert m["display"] == "standalone" and m["lang"] == "fr"
    assert re.fullmatch(r"#[0-9a-f]{6}", m["theme_color"]) and re.fullmatch(
        r"#[0-9a-f]{6}", m["background_color"]
    )
    sizes = {(i["sizes"], i["purpose"]) for i in m["icons"]}
    assert sizes == {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")}
    for icon in m["icons"]:
        png = (dist / icon["src"].lstrip("/")).read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and icon["type"] == "image/png"
        width, height = struct.unpack(">II", png[16:24])
        assert f"{width}x{height}" == icon["sizes"]
    index = (dist / "index.html").read_text(encoding="utf-8")
    assert '<link rel="manifest" href="/app.webmanifest">' in index
    assert f'<meta name="theme-color" content="{m["theme_color"]}">' in index
    assert 'navigator.serviceWorker.register("/sw.js", {scope: "/"})' in index


def test_the_maskable_icon_fills_its_square_and_the_other_is_transparent_in_its_corner() -> None:
    import zlib

    def first_pixel(png: bytes) -> bytes:
        idat = png[png.index(b"IDAT") + 4 :]
        raw = zlib.decompressobj().decompress(idat)
        return raw[1:5]  # row 0's filter byte, then RGBA

    assert first_pixel(build.icon_png(64, True))[3] == 255
    assert first_pixel(build.icon_png(64, False))[3] == 0


def test_the_precache_list_is_the_files_built_with_their_hashes() -> None:
    dist = _built()
    version = json.loads((dist / "manifest.json").read_text())["build"]
    cache, entries = _precache((dist / "sw.js").read_text(encoding="utf-8"))
    urls = {url for url, _ in entries}
    # The shell, the worker module as the page asks for it, the bundle (main.py in it), the runtime, icons.
    assert {"/index.html", f"/pyodide-boot.mjs?v={version}", f"/lexio-{version}.zip"} <= urls
    assert {"/runtime/pyodide-314.0.7/pyodide.asm.wasm", "/app.webmanifest", "/icon-maskable-512.png"} <= urls
    assert not {
        u for u in urls if u.endswith((".br", ".gz")) or "pyscript" in u or u in ("/sw.js", "/manifest.json")
    }
    for url, digest in entries:
        path = dist / url.lstrip("/").split("?")[0]
        assert hashlib.sha256(path.read_bytes()).hexdigest()[: len(digest)] == digest, url
    assert (
        cache
        == "lexio-shell-"
        + hashlib.sha256(json.dumps(entries, separators=(",", ":")).encode()).hexdigest()[:16]
    )
    assert "__" not in re.sub(r"__precache\.json", "", (dist / "sw.js").read_text(encoding="utf-8"))


def test_a_rebuild_with_changed_content_changes_the_cache_name(tmp_path: Path) -> None:
    dist = _built()
    site = tmp_path / "site"
    shutil.copytree(dist, site, ignore=shutil.ignore_patterns("*.br", "*.gz"))
    version = json.loads((site / "manifest.json").read_text())["build"]
    before, entries = _precache((site / "sw.js").read_text(encoding="utf-8"))
    assert build.write_service_worker(site, "/", version) == before  # same files: same worker
    (site / "rules.en.html").write_text((site / "rules.en.html").read_text() + "<!-- changed -->")
    after = build.write_service_worker(site, "/", version)
    assert after != before
    changed = {u: h for u, h in _precache((site / "sw.js").read_text(encoding="utf-8"))[1]}
    old = dict(entries)
    assert [u for u in changed if changed[u] != old[u]] == ["/rules.en.html"]  # only it is downloaded again
    (site / "rules.en.html").unlink()
    with pytest.raises(SystemExit):
        build.write_service_worker(site, "/", version)


def test_the_relay_serves_them_with_their_types_and_revalidates_the_worker() -> None:
    assert content_type(Path("app.webmanifest")) == "application/manifest+json"
    assert content_type(Path("sw.js")) == "text/javascript; charset=utf-8"
    assert content_type(Path("icon-192.png")) == "image/png"
    # A new build's sw.js must be seen at the next visit: never cached as immutable.
    assert cache_control("sw.js") == cache_control("app.webmanifest") == "no-cache"
