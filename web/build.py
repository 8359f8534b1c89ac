#!/usr/bin/env python3
"""Build the Lexio single-page app into a static folder (default ``web/dist``).

Steps: fetch the pinned npm tarballs of Pyodide and PyScript with ``npm pack`` (cached under
``.cache/npm``, checked against the sha512 recorded below), unpack the run-time files with ``tarfile``,
bundle ``engine/`` (copied from the repository, never duplicated in it) and ``web/app/`` into one zip the
browser unpacks into Pyodide's file system, pre-render the static shell (lobby + empty board) with the same
Python renderer the app uses, write ``config.json`` (relay address), the web app manifest and its icons, the
service worker (``sw.js``: web/src/sw.js with the precache list of the files written, by content hash), and
precompress every text/wasm file (``.gz`` always, ``.br`` when the optional ``brotli`` package is importable).

Raises ``SystemExit`` with a message when npm fails or a tarball's hash does not match.
"""

from __future__ import annotations

import argparse
import ast
import base64
import gzip
import hashlib
import io
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tarfile
import time
import zipfile
import zlib
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WEB = ROOT / "web"
CACHE = ROOT / ".cache" / "npm"

# Pinned runtime: (npm spec, tarball name, sha512 integrity as npm reports it, sha256 of the same bytes).
PACKAGES = {
    "pyodide": (
        "pyodide@314.0.7",
        "pyodide-314.0.7.tgz",
        "sha512-0YvXxEhfEdpLfb/XkM2BFAeMROq0iMUX2bzzH9pOttyMcWkwq+HbE5uyuGD82LN7y2q+SNvi/6V5JEsOlD2R1A==",
        "66b7949e5a0cba2250b586d7e368bf12fb482800748d182c4618254b685ffaa0",
    ),
    "pyscript": (
        "@pyscript/core@0.7.31",
        "pyscript-core-0.7.31.tgz",
        "sha512-GqM1aonc1N4RTkNZ1zJ8jJk8+i2cqeztZslPsAiQtn+wHHkUX9Z1FgIg4HjCvhBylB68UKmbTVTzOobpgPIMVQ==",
        "b2ca1a0c0956aebd990a7c8524cca1eb061444a8319a7264d2f31ef30bea276a",
    ),
    # Monochrome emoji (SIL OFL 1.1), for what players type in the chat: a stock Debian Chromium has no emoji
    # font and drew empty boxes. Split by unicode-range: a page downloads only the subsets it shows.
    "emoji": (
        "@fontsource/noto-emoji@5.3.2",
        "fontsource-noto-emoji-5.3.2.tgz",
        "sha512-N9CSzXJB04AVWYvFbuBgL2Dq964Zo91th/uOu/QLSuWBYuL9FWXGcEo6ZNwc/IJ7vmpm8KHaIKD7jF8pYm4taw==",
        "1fe49bb2cf7c2d78f93c0a69b6a431dcfd0d585b7831eba87fae6888ccf8d373",
    ),
    # Test-only (never shipped in web/dist): the accessibility engine the e2e suite injects (e2e/a11y.py).
    "axe": (
        "axe-core@4.14.1",
        "axe-core-4.14.1.tgz",
        "sha512-FHfa+lmNjQZfJz1q8wKqIDwC6DExcHt/pkjNQb09a3NPjCKg2rhu5qb2S4r76ASyFNNtuFooJpZe37OgudVGtQ==",
        "e6b0ce02b84d892e2e33e403485e7f3d6c29e2be6df65daf44d89ba564139745",
    ),
}
# Versioned folders: the relay serves /runtime/<name>-<version>/ as immutable (a year, no revalidation).
RUNTIME_DIRS = {
    "pyodide": "runtime/pyodide-314.0.7",
    "pyscript": "runtime/pyscript-core-0.7.31",
    "emoji": "runtime/noto-emoji-5.3.2",
}
# Only what a page needs at run time (the tarball also ships typings, maps and consoles).
PYODIDE_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)
# Pyodide's standard library, as the app loads it (issue 28): the same files as python_stdlib.zip, stored
# rather than deflated one by one, so that brotli compresses the archive as a whole (2.49 MB -> 1.59 MB on
# the wire) and zipimport reads each module without inflating it. The stock zip stays for the pages of the
# bare runtime (bench/browser.py) and the build's own bytecode compiler.
STDLIB_STORED = "python_stdlib-stored.zip"
# web/pycompile.mjs's folder for the bytecode of the modules Pyodide imports from that zip at its own start
# (~125, compiled from source on every first visit otherwise: 1.5 s of a 2.9 s start on this machine): in
# the stored copy each one's source is replaced by its bytecode (unchecked hash-based .pyc, docstrings
# dropped as under -OO), which costs fewer bytes than keeping both. The stock zip has sources only.
RUNTIME_PYC = "_runtime/"
# The runtime files the app's worker (pyodide-boot.mjs) loads: what the service worker keeps. Not
# pyodide-lock.json (119 KB, 22 KB of brotli): its packages are wheels this site does not ship (the npm
# tarball has none), so the worker hands Pyodide the lock file's "info" with no packages (lock_contents).
APP_RUNTIME_FILES = tuple(
    STDLIB_STORED if n == "python_stdlib.zip" else n for n in PYODIDE_FILES if n != "pyodide-lock.json"
)
HOME = "/home/pyodide"  # where pyodide-boot.mjs unpacks the bundle in the browser
MAIN_MODULE = "lexio_main"  # web/src/main.py, as the bundle's module that pyodide-boot.mjs imports
# The installable app (issue 31): the web app manifest (manifest.json is the build's own list of files), its
# icons, and the service worker made from web/src/sw.js (filled below, not copied as it is).
WEB_MANIFEST = "app.webmanifest"
SW = "sw.js"
THEME = "#1d5a3a"  # lexio.css --accent
BACKGROUND = "#f4f1ea"  # lexio.css --bg
ICONS = (("icon-192.png", 192, False), ("icon-512.png", 512, False), ("icon-maskable-512.png", 512, True))
# Files of the site the service worker keeps besides the runtime and the bundle (relative to the base).
SHELL_FILES = ("index.html", "config.json", WEB_MANIFEST, "turn.wav", "rules.fr.html", "rules.en.html")
HASH_LEN = 16  # hex digits of sha256 per precached file (sw.js checks what it downloads against them)
COMPRESS_EXT = {
    ".py",
    ".html",
    ".css",
    ".js",
    ".mjs",
    ".json",
    ".wasm",
    ".zip",
    ".svg",
    ".txt",
    ".webmanifest",
}
MIN_COMPRESS = 512


def _digest_ok(data: bytes, integrity: str, sha256: str) -> bool:
    algo, _, b64 = integrity.partition("-")
    sri = base64.b64encode(hashlib.new(algo, data).digest()).decode()
    return sri == b64 and hashlib.sha256(data).hexdigest() == sha256


def fetch(key: str) -> bytes:
    """Return the verified bytes of one pinned tarball, from the cache or from ``npm pack``.

    Raises SystemExit if npm fails or the hash does not match the pin.
    """
    spec, fname, integrity, sha256 = PACKAGES[key]
    path = CACHE / fname
    if path.exists():
        data = path.read_bytes()
        if _digest_ok(data, integrity, sha256):
            return data
        path.unlink()  # a corrupt cache entry is refetched, never trusted
    CACHE.mkdir(parents=True, exist_ok=True)
    if shutil.which("npm") is None:
        raise SystemExit(f"npm is needed once to fetch {spec}: run `make tools` as root")
    proc = subprocess.run(
        ["npm", "pack", spec, "--pack-destination", str(CACHE), "--silent"],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0 or not path.exists():
        raise SystemExit(f"npm pack {spec} failed ({proc.returncode}): {proc.stderr.strip()[:500]}")
    data = path.read_bytes()
    if not _digest_ok(data, integrity, sha256):
        path.unlink()
        raise SystemExit(f"{fname}: hash mismatch with the pinned {integrity}")
    return data


def _safe_members(tar: tarfile.TarFile, prefix: str) -> list[tarfile.TarInfo]:
    return [m for m in tar.getmembers() if m.isfile() and m.name.startswith(prefix) and ".." not in m.name]


def unpack_runtime(out: Path) -> None:
    with tarfile.open(fileobj=io.BytesIO(fetch("pyodide")), mode="r:gz") as tar:
        dest = out / RUNTIME_DIRS["pyodide"]
        dest.mkdir(parents=True)
        for name in PYODIDE_FILES:
            member = tar.extractfile(f"package/{name}")
            if member is None:
                raise SystemExit(f"pyodide tarball lacks {name}")
            (dest / name).write_bytes(member.read())
    # The app no longer runs on PyScript (pyodide-boot.mjs starts its worker): PyScript is shipped for
    # bench/browser.py's empty-PyScript page only, which the app's figures are compared with. No page of the
    # app requests it.
    with tarfile.open(fileobj=io.BytesIO(fetch("pyscript")), mode="r:gz") as tar:
        dest = out / RUNTIME_DIRS["pyscript"]
        dest.mkdir(parents=True)
        for m in _safe_members(tar, "package/dist/"):
            if m.name.endswith(".map"):
                continue
            f = tar.extractfile(m)
            assert f is not None
            (dest / Path(m.name).name).write_bytes(f.read())


def stored_zip(data: bytes, bytecode: Mapping[str, bytes] | None = None) -> bytes:
    """The same archive, every member stored (not deflated), in the same order with the same names, dates and
    attributes: deterministic, so the compressed siblings' cache hits on every rebuild. ``bytecode``: a
    member's path + "c" -> its bytecode, written instead of that member (zipimport finds NAME.pyc)."""
    swap = bytecode or {}
    buf = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as dst:
        for info in src.infolist():
            compiled = swap.get(info.filename + "c")
            member = zipfile.ZipInfo(
                info.filename if compiled is None else info.filename + "c", info.date_time
            )
            member.external_attr = info.external_attr
            member.compress_type = zipfile.ZIP_STORED
            dst.writestr(member, src.read(info) if compiled is None else compiled)
    return buf.getvalue()


def lock_contents(pyodide_dir: Path) -> str:
    """The lock file the app's worker gives Pyodide (``lockFileContents``), as JSON: the runtime's own
    ``info`` (its ABI is checked at start) and no packages, none being shipped; a ``loadPackage`` would fail
    either way, and an import of a missing module says so without naming a package it could not load."""
    info = json.loads((pyodide_dir / "pyodide-lock.json").read_text(encoding="utf-8"))["info"]
    return json.dumps({"info": info, "packages": {}}, separators=(",", ":"), sort_keys=True)


def unpack_emoji(out: Path) -> str:
    """Unpack the emoji font's woff2 subsets (and its licence); return their ``@font-face`` rules, read from
    the package's own stylesheet (unicode ranges included), pointing at the site's copy (``__BASE__``)."""
    dest = out / RUNTIME_DIRS["emoji"]
    dest.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(fetch("emoji")), mode="r:gz") as tar:
        css_file = tar.extractfile("package/400.css")
        licence = tar.extractfile("package/LICENSE")
        if css_file is None or licence is None:
            raise SystemExit("the emoji font's tarball lacks 400.css or LICENSE")
        css = css_file.read().decode("utf-8")
        (dest / "LICENSE").write_bytes(licence.read())
        rules = []
        for block in re.findall(r"@font-face\s*\{[^}]*\}", css):
            woff2 = re.search(r"url\(\./files/([\w-]+\.woff2)\) format\('woff2'\)", block)
            if woff2 is None:
                continue
            member = tar.extractfile(f"package/files/{woff2.group(1)}")
            if member is None:
                raise SystemExit(f"the emoji font's tarball lacks {woff2.group(1)}")
            (dest / woff2.group(1)).write_bytes(member.read())
            url = f"url(__BASE__{RUNTIME_DIRS['emoji']}/{woff2.group(1)}) format('woff2')"
            rules.append(re.sub(r"src:[^;]*;", f"src: {url};", block))
    if not rules:
        raise SystemExit("no @font-face rule in the emoji font's stylesheet")
    return "\n".join(rules)


def python_sources() -> dict[str, bytes]:
    """engine/, wire/ and web/app/ (sources only, no tests): the bundle's path -> the file's bytes."""
    files: dict[str, bytes] = {}
    for pkg, src in (("engine", ROOT / "engine"), ("wire", ROOT / "wire"), ("app", WEB / "app")):
        if not (src / "__init__.py").exists():
            raise SystemExit(f"{src} is not a package (missing __init__.py)")
        for f in sorted(src.rglob("*.py")):
            if "__pycache__" in f.parts or "tests" in f.parts:
                continue
            files[f"{pkg}/{f.relative_to(src).as_posix()}"] = f.read_bytes()
    return files


def compile_first_path(pyodide_dir: Path, sources: dict[str, bytes], probe: list[str]) -> dict[str, bytes]:
    """Bytecode of what the browser runs before the first answer, made by the shipped Pyodide under Node
    (web/pycompile.mjs): the bundle's path (``app/state.pyc``, ``_stdlib/<module path>.pyc``) -> bytes.

    Cached by content in .cache/web-pyc (a rebuild stays under a second). Without Node, or if it fails, the
    bundle ships sources only (each first visit then compiles them: slower, never wrong) and this says so.
    """
    key = hashlib.sha256()
    for part in (
        PACKAGES["pyodide"][3],
        (WEB / "pycompile.mjs").read_text(encoding="utf-8"),
        json.dumps(probe),
        *(f"{k}\0{hashlib.sha256(v).hexdigest()}" for k, v in sorted(sources.items())),
    ):
        key.update(part.encode() + b"\0")
    cached = CACHE.parent / "web-pyc" / key.hexdigest()[:24]
    if not (cached / "compiled.json").exists():
        node = shutil.which("node")
        if node is None:
            print(
                "web/build.py: no node, so the bundle ships sources (a slower first visit)", file=sys.stderr
            )
            return {}
        work = cached.with_name(cached.name + ".tmp")
        shutil.rmtree(work, ignore_errors=True)
        (work / "src").mkdir(parents=True)
        (work / "out").mkdir()
        for arc, data in sources.items():
            (work / "src" / arc).parent.mkdir(parents=True, exist_ok=True)
            (work / "src" / arc).write_bytes(data)
        job = {"src": str(work / "src"), "out": str(work / "out"), "home": HOME, "probe": probe}
        job["stdlib_dir"] = "_stdlib"
        job["scripts"] = [MAIN_MODULE + ".py"]
        (work / "job.json").write_text(json.dumps(job), encoding="utf-8")
        proc = subprocess.run(
            [node, str(WEB / "pycompile.mjs"), str(pyodide_dir), str(work / "job.json")],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0 or not (work / "out" / "compiled.json").exists():
            print(f"web/build.py: bytecode not made, shipping sources: {proc.stderr[-800:]}", file=sys.stderr)
            shutil.rmtree(work, ignore_errors=True)
            return {}
        shutil.rmtree(cached, ignore_errors=True)
        os.replace(work / "out", cached)
        shutil.rmtree(work, ignore_errors=True)
    names = json.loads((cached / "compiled.json").read_text(encoding="utf-8"))
    return {n: (cached / n).read_bytes() for n in names}


def bundle_python(out: Path, sources: dict[str, bytes], compiled: dict[str, bytes]) -> str:
    """Zip the sources, each first-path module as its bytecode instead (``compiled``), into
    lexio-<hash>.zip; return its name.

    Stored, not deflated: the file is served brotli-compressed, which then sees all the files at once (one
    deflate stream per member compressed 3x worse), and the browser unpacks it without inflating.
    The glue web/src/main.py is in it as the module ``lexio_main`` (MAIN_MODULE), which the worker imports.
    """
    members = {arc: data for arc, data in sources.items() if arc + "c" not in compiled}
    members.update(compiled)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        for arc, data in sorted(members.items()):
            z.writestr(zipfile.ZipInfo(arc, date_time=(2020, 1, 1, 0, 0, 0)), data)
    data = buf.getvalue()
    # Versioned name: the archive type is detected from the extension, so no query string.
    name = f"lexio-{hashlib.sha256(data).hexdigest()[:12]}.zip"
    (out / name).write_bytes(data)
    return name


def warm_imports(main_py: Path) -> str:
    """The modules ``main.py`` imports at its top, except the browser's own (js, pyodide, pyscript).

    ``pyodide-boot.mjs`` imports them before it snapshots the interpreter on a first visit, so a returning
    visitor gets them compiled and initialised. Raises SyntaxError if main.py does not parse.
    """
    names: list[str] = []
    for node in ast.parse(main_py.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import):
            found = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found = [node.module] + [f"{node.module}.{a.name}" for a in node.names if node.module == "app"]
        else:
            continue
        names += [n for n in found if n.split(".")[0] not in ("js", "pyodide", "pyscript", "__future__")]
    return ", ".join(dict.fromkeys(names))


def write_rules(out: Path) -> None:
    """The rules of the game (docs/rules.*.txt) as pages of the site, for the Rules link of every screen."""
    sys.path.insert(0, str(WEB))
    sys.path.insert(0, str(ROOT))
    from app.rules_page import rules_page

    for lang in ("fr", "en"):
        text = (ROOT / "docs" / f"rules.{lang}.txt").read_text(encoding="utf-8")
        (out / f"rules.{lang}.html").write_text(rules_page(lang, text), encoding="utf-8")


def render_shell() -> tuple[str, str]:
    """Pre-render the lobby and an empty board with the app's own renderer (CPython, at build time)."""
    sys.path.insert(0, str(WEB))
    sys.path.insert(0, str(ROOT))
    from app import render
    from app.i18n import Translator
    from app.state import UiState

    # Both languages: the bootstrap shows the browser's (or the stored) one before Python runs.
    state = UiState()
    header = body = ""
    for lang in ("fr", "en"):
        tr = Translator(lang)
        header += f'<div class="shell-{lang}">{render.shell_header(state, tr)}</div>'
        body += f'<div class="shell-{lang}">{render.shell_body(state, tr)}</div>'
    return header, body


def _rgb(colour: str) -> bytes:
    return bytes.fromhex(colour.lstrip("#")) + b"\xff"


def _rounded_span(y: float, x0: float, y0: float, side: float, radius: float) -> tuple[float, float] | None:
    """The part of row ``y`` inside a square (corner ``x0, y0``, ``side``) with rounded corners."""
    if not y0 <= y < y0 + side:
        return None
    dy = max(y0 + radius - y, y - (y0 + side - radius), 0.0)
    inset = radius - (radius * radius - dy * dy) ** 0.5 if dy else 0.0
    return x0 + inset, x0 + side - inset


def icon_png(size: int, maskable: bool) -> bytes:
    """The app's icon as a PNG: a letter tile "L" on the theme colour. Drawn here (no image tool, no CDN),
    deterministic, so its hash changes only when this code does. ``maskable``: the background fills the whole
    square and the tile stays inside the central 80 % that every launcher's mask keeps."""
    bg, tile, ink = _rgb(THEME), _rgb("#fdf5e0"), _rgb("#1d1b16")
    clear = b"\x00\x00\x00\x00"
    tile_side = size * (0.5 if maskable else 0.62)
    t0 = (size - tile_side) / 2
    stroke = tile_side * 0.14
    # The "L": a bar down the tile's left third and a foot along its bottom.
    lx0, ly0 = t0 + tile_side * 0.3, t0 + tile_side * 0.2
    lx1, ly1 = t0 + tile_side * 0.72, t0 + tile_side * 0.8
    rows = []
    for yi in range(size):
        y = yi + 0.5
        row = bytearray((bg if maskable else clear) * size)
        spans: list[tuple[tuple[float, float] | None, bytes]] = []
        if not maskable:
            spans.append((_rounded_span(y, 0, 0, size, size * 0.18), bg))
        spans.append((_rounded_span(y, t0, t0, tile_side, tile_side * 0.12), tile))
        if ly0 <= y < ly1:
            spans.append(((lx0, lx0 + stroke), ink))
        if ly1 - stroke <= y < ly1:
            spans.append(((lx0, lx1), ink))
        for span, colour in spans:
            if span is None:
                continue
            a, b = max(0, round(span[0])), min(size, round(span[1]))
            if b > a:
                row[a * 4 : b * 4] = colour * (b - a)
        rows.append(b"\x00" + bytes(row))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)  # 8-bit RGBA
    idat = zlib.compress(b"".join(rows), 9)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def write_app_manifest(out: Path, base: str) -> None:
    """The web app manifest and its icons: what a browser needs to offer "install" (name, icons of 192 and
    512 px and a maskable one, start URL and scope at the base, standalone display, theme colour)."""
    for name, size, maskable in ICONS:
        (out / name).write_bytes(icon_png(size, maskable))
    manifest = {
        "id": base,
        "name": "Lexio — mots croisés en ligne",
        "short_name": "Lexio",
        "description": "Mots croisés en ligne, 2 à 4 joueurs",
        "lang": "fr",
        "dir": "ltr",
        "start_url": base,
        "scope": base,
        "display": "standalone",
        "background_color": BACKGROUND,
        "theme_color": THEME,
        "icons": [
            {
                "src": base + name,
                "sizes": f"{size}x{size}",
                "type": "image/png",
                "purpose": "maskable" if maskable else "any",
            }
            for name, size, maskable in ICONS
        ],
    }
    (out / WEB_MANIFEST).write_text(json.dumps(manifest, ensure_ascii=False, indent=1), encoding="utf-8")


def precache_list(out: Path, version: str) -> list[tuple[str, str]]:
    """What the service worker keeps: (URL relative to the base, as the page and its worker ask for it;
    the file under ``out``). The worker module is asked for with ``?v=<build>``."""
    bundle = f"lexio-{version}.zip"
    runtime = [f"{RUNTIME_DIRS['pyodide']}/{n}" for n in APP_RUNTIME_FILES]
    pairs = [(f, f) for f in (*SHELL_FILES, *(n for n, _, _ in ICONS), bundle, *runtime)]
    pairs += [(f"pyodide-boot.mjs?v={version}", "pyodide-boot.mjs")]
    missing = [f for _, f in pairs if not (out / f).is_file()]
    if missing:
        raise SystemExit(f"the service worker's files are missing from {out}: {missing}")
    return sorted(pairs)


def write_service_worker(out: Path, base: str, version: str) -> str:
    """Fill web/src/sw.js with the precache list (each file's URL and sha256 prefix) and a cache name made of
    all of them, into ``out/sw.js``; return the cache name. Run again over a site whose files changed, it
    gives another name, hence another sw.js: browsers install it as a new version."""
    entries = [
        [base + url, hashlib.sha256((out / f).read_bytes()).hexdigest()[:HASH_LEN]]
        for url, f in precache_list(out, version)
    ]
    listing = json.dumps(entries, separators=(",", ":"))
    cache = "lexio-shell-" + hashlib.sha256(listing.encode()).hexdigest()[:HASH_LEN]
    template = (WEB / "src" / SW).read_text(encoding="utf-8")
    text = template.replace("__BASE__", base).replace("__CACHE__", cache).replace("__PRECACHE__", listing)
    (out / SW).write_text(text, encoding="utf-8")
    return cache


def _compressors() -> dict[str, object]:
    out: dict[str, object] = {".gz": lambda raw: gzip.compress(raw, compresslevel=9, mtime=0)}
    try:
        import brotli  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError:
        return out
    out[".br"] = lambda raw: brotli.compress(raw, quality=11)
    return out


def precompress(files: list[Path]) -> dict[str, int]:
    """Write ``.gz`` (and ``.br``) siblings; results are cached by content hash, so a rebuild is fast."""
    counts = {".gz": 0, ".br": 0}
    cache = CACHE.parent / "web-compressed"
    cache.mkdir(parents=True, exist_ok=True)
    for f in files:
        if f.suffix not in COMPRESS_EXT or f.stat().st_size < MIN_COMPRESS:
            continue
        raw = f.read_bytes()
        digest = hashlib.sha256(raw).hexdigest()
        for ext, fn in _compressors().items():
            hit = cache / (digest + ext)
            if hit.exists():
                data = hit.read_bytes()
            else:
                data = fn(raw)  # type: ignore[operator]
                hit.write_bytes(data)
            if len(data) < len(raw):
                f.with_name(f.name + ext).write_bytes(data)
                counts[ext] += 1
    return counts


def _wire_size(f: Path) -> int:
    """Bytes a browser accepting br/gzip downloads for ``f`` (after :func:`precompress`)."""
    for ext in (".br", ".gz"):
        c = f.with_name(f.name + ext)
        if c.exists():
            return c.stat().st_size
    return f.stat().st_size


def build(out: Path, relay: str, base: str = "/", bytecode: bool = True) -> dict[str, object]:
    t0 = time.perf_counter()
    tmp = out.with_name(out.name + ".tmp")
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    unpack_runtime(tmp)
    emoji_css = unpack_emoji(tmp)
    src = WEB / "src"
    sources = python_sources()
    # The worker's program, imported from the bundle (pyodide-boot.mjs): its bytecode, when built, spares a
    # returning visit the compiler (~60-90 ms: a snapshot start has never run it).
    sources[MAIN_MODULE + ".py"] = (src / "main.py").read_bytes()
    members = sorted(sources)
    runtime_dir = tmp / RUNTIME_DIRS["pyodide"]
    compiled: dict[str, bytes] = {}
    if bytecode:
        probe = warm_imports(src / "main.py").split(", ")
        compiled = compile_first_path(runtime_dir, sources, probe)
    # Pyodide's own start from bytecode (when built): in the app's copy of the standard library, instead of
    # the sources.
    start = {k.removeprefix(RUNTIME_PYC): v for k, v in compiled.items() if k.startswith(RUNTIME_PYC)}
    compiled = {k: v for k, v in compiled.items() if not k.startswith(RUNTIME_PYC)}
    stock = (runtime_dir / "python_stdlib.zip").read_bytes()
    (runtime_dir / STDLIB_STORED).write_bytes(stored_zip(stock, start))
    bundle = bundle_python(tmp, sources, compiled)
    header, body = render_shell()
    for f in src.iterdir():
        if f.is_file() and f.name not in ("lexio.css", "main.py"):  # inlined into index.html, the bundle
            shutil.copyfile(f, tmp / f.name)
    write_rules(tmp)
    index = (tmp / "index.html").read_text(encoding="utf-8")
    # Inline the stylesheet: first paint then needs one response, not two.
    index = index.replace("/*LEXIO_CSS*/", emoji_css + "\n" + (src / "lexio.css").read_text(encoding="utf-8"))
    version = bundle[6:-4]
    runtime_files = sorted(f for d in RUNTIME_DIRS.values() for f in (tmp / d).iterdir() if f.is_file())
    counts = precompress(runtime_files)
    # What a first visit downloads before Python runs (for the progress bar): the runtime the worker loads.
    startup = [tmp / RUNTIME_DIRS["pyodide"] / n for n in APP_RUNTIME_FILES] + [tmp / bundle]
    # Counted as the worker receives them (pyodide-boot.mjs): decoded bytes, i.e. the files' own sizes.
    runtime = sum(f.stat().st_size for f in startup if f.exists())

    def fill(text: str) -> str:
        return (
            text.replace("__BUILD__", version)
            .replace("__BASE__", base)
            .replace("__BUNDLE__", bundle)
            .replace("__WARM__", warm_imports(src / "main.py"))
            .replace("__PYSCRIPT__", base + RUNTIME_DIRS["pyscript"])
            .replace("__PYODIDE__", base + RUNTIME_DIRS["pyodide"])
            .replace("__STDLIB__", STDLIB_STORED)
            .replace("__MAIN__", MAIN_MODULE)
            .replace("__LOCK__", lock_contents(tmp / RUNTIME_DIRS["pyodide"]))
        )

    index = fill(
        index.replace("__EXPECTED_BYTES__", str(runtime))
        .replace("<!--SHELL_HEADER-->", header)
        .replace("<!--SHELL_BODY-->", body)
    )
    (tmp / "index.html").write_text(index, encoding="utf-8")
    boot = tmp / "pyodide-boot.mjs"
    boot.write_text(fill(boot.read_text(encoding="utf-8")), encoding="utf-8")
    (tmp / "config.json").write_text(json.dumps({"relay": relay}), encoding="utf-8")
    write_app_manifest(tmp, base)
    cache = write_service_worker(tmp, base, version)  # last: it hashes the files written above
    sizes = {f.relative_to(tmp).as_posix(): f.stat().st_size for f in tmp.rglob("*") if f.is_file()}
    (tmp / "manifest.json").write_text(
        json.dumps(
            {"build": version, "python": members, "bytecode": sorted(compiled), "sizes": sizes}, indent=1
        ),
        encoding="utf-8",
    )
    rest = sorted(f for f in tmp.rglob("*") if f.is_file() and f not in set(runtime_files))
    for ext, n in precompress(rest).items():
        counts[ext] += n
    (tmp / ".built").write_text(version, encoding="utf-8")
    if out.exists():
        shutil.rmtree(out)
    os.replace(tmp, out)
    return {
        "out": str(out),
        "build": version,
        "files": len(sizes),
        "gz": counts[".gz"],
        "br": counts[".br"],
        "bytecode": len(compiled),
        "sw_cache": cache,
        "seconds": round(time.perf_counter() - t0, 2),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--out", type=Path, default=WEB / "dist")
    ap.add_argument(
        "--relay",
        default="",
        help="relay base URL (e.g. https://relay.example); empty = the page's own origin; "
        "a page can also override it with ?relay=URL",
    )
    ap.add_argument(
        "--base",
        default="/",
        help="URL path the site is served under (table links are BASE + 't/ID'); default /",
    )
    ap.add_argument(
        "--fetch",
        action="append",
        choices=sorted(PACKAGES),
        help="only fetch (hash-checked) these packages into the npm cache and stop, e.g. the test tools",
    )
    ap.add_argument(
        "--sources-only",
        action="store_true",
        help="ship the Python sources without the first path's bytecode (no Node needed; slower first visit)",
    )
    args = ap.parse_args(argv)
    if args.fetch:
        for key in args.fetch:
            fetch(key)
        return 0
    out = args.out if args.out.is_absolute() else Path.cwd() / args.out
    base = "/" + args.base.strip("/") + "/" if args.base.strip("/") else "/"
    info = build(out, args.relay, base, bytecode=not args.sources_only)
    print(" ".join(f"{k}={v}" for k, v in info.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
