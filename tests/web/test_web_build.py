"""The build: pinned, hash-checked runtime; a site that asks nothing of any other host."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "web" / "dist"
spec = importlib.util.spec_from_file_location("lexio_web_build", ROOT / "web" / "build.py")
assert spec and spec.loader
build = importlib.util.module_from_spec(spec)
spec.loader.exec_module(build)


def test_runtime_versions_are_pinned_exactly_with_both_hashes() -> None:
    assert build.PACKAGES["pyodide"][0] == "pyodide@314.0.7"
    assert build.PACKAGES["pyscript"][0] == "@pyscript/core@0.7.31"
    for _spec, _name, integrity, sha256 in build.PACKAGES.values():
        assert integrity.startswith("sha512-") and len(integrity) == 95
        assert re.fullmatch(r"[0-9a-f]{64}", sha256)


def test_axe_core_for_the_e2e_suite_is_a_pinned_4x_and_not_shipped() -> None:
    assert re.fullmatch(r"axe-core@4\.\d+\.\d+", build.PACKAGES["axe"][0])
    if (DIST / "index.html").exists():
        assert not list(DIST.rglob("axe*")), "axe-core is a test tool: web/dist must not carry it"


@pytest.mark.parametrize("key", ["pyodide", "pyscript", "axe"])
def test_a_tampered_tarball_fails_the_hash_check(key: str) -> None:
    _spec, name, integrity, sha256 = build.PACKAGES[key]
    cached = build.CACHE / name
    if not cached.exists():
        pytest.skip("npm cache not populated (run web/build.py once)")
    data = cached.read_bytes()
    assert build._digest_ok(data, integrity, sha256)
    tampered = bytearray(data)
    tampered[len(tampered) // 2] ^= 1
    assert not build._digest_ok(bytes(tampered), integrity, sha256)


def _built() -> Path:
    if not (DIST / "index.html").exists():
        pytest.skip("web/dist not built (make web)")
    return DIST


def test_the_built_site_names_no_other_host() -> None:
    dist = _built()
    index = (dist / "index.html").read_text()
    for url in re.findall(r'(?:src|href)="([^"]+)"', index):
        assert not re.match(r"^[a-z]+:|^//", url) or url.startswith("data:"), url
    worker = re.search(r'new Worker\("([^"]+)"', index)
    assert worker is not None and worker.group(1).startswith("/") and "//" not in worker.group(1)
    boot = (dist / "pyodide-boot.mjs").read_text()
    for url in re.findall(r'(?:from |at\()"([^"]+)"', boot):
        assert url.startswith("/") and "//" not in url, url


def test_the_page_starts_its_worker_through_the_snapshot_wrapper() -> None:
    """The page starts our worker module (issue 28: no PyScript in between): it loads the local runtime,
    unpacks this build's bundle and keys the interpreter snapshot by this build."""
    dist = _built()
    build_id = json.loads((dist / "manifest.json").read_text())["build"]
    index = (dist / "index.html").read_text()
    assert f'new Worker("/pyodide-boot.mjs?v={build_id}", {{type: "module"}})' in index
    assert "pyscript" not in index.lower()
    boot = (dist / "pyodide-boot.mjs").read_text()
    assert not re.search(r"__[A-Z]+__", boot.replace("__NAME__", "")), "a placeholder was left unfilled"
    assert 'from "/runtime/pyodide-314.0.7/pyodide.mjs"' in boot and "export {version}" in boot
    assert f'"/lexio-{build_id}.zip"' in boot and (dist / f"lexio-{build_id}.zip").exists()
    assert f'/snapshot/" + version + "/{build_id}' in boot
    # The modules compiled into the snapshot are main.py's own imports, never a browser module.
    warm = re.search(r'const WARM = "([^"]*)"', boot)
    assert warm is not None
    names = warm.group(1).split(", ")
    assert {"app.state", "app.render", "json"} <= set(names)
    assert not {n for n in names if n.split(".")[0] in ("js", "pyodide", "pyscript")}


def test_the_engine_is_copied_from_engine_not_kept_twice() -> None:
    dist = _built()
    members = set(json.loads((dist / "manifest.json").read_text())["python"])
    # The bundle carries the engine package as it is in engine/ (checked on files every build must have).
    assert {
        "engine/__init__.py",
        "engine/scoring.py",
        "engine/variants/__init__.py",
        "app/state.py",
    } <= members
    assert all((ROOT / m).exists() for m in members if m.startswith("engine/"))
    assert not list((ROOT / "web").glob("**/engine/*.py"))  # no second copy in the repository


def test_text_and_wasm_are_precompressed() -> None:
    dist = _built()
    wasm = next(dist.glob("runtime/pyodide-*/pyodide.asm.wasm"))
    assert wasm.with_name(wasm.name + ".gz").exists()
    assert (dist / "index.html.gz").exists()


def test_the_app_loads_the_standard_library_stored_with_the_same_files() -> None:
    """Issue 28: the app's worker loads Pyodide's standard library from a stored copy (brotli then compresses
    the whole archive): the same members in the same order, byte for byte, except the modules Pyodide imports
    at its own start, whose source is replaced by their bytecode (unchecked hash-based .pyc of the shipped
    CPython, as the bundle's); the service worker keeps that copy, not the stock zip (which stays for the
    bare runtime's pages)."""
    import zipfile

    dist = _built()
    runtime = next(dist.glob("runtime/pyodide-*"))
    bundle = next(dist.glob("lexio-*.zip"))
    with zipfile.ZipFile(bundle) as z:
        magic = z.read("app/state.pyc")[:4]  # the browser's CPython's
    with (
        zipfile.ZipFile(runtime / "python_stdlib.zip") as stock,
        zipfile.ZipFile(runtime / build.STDLIB_STORED) as stored,
    ):
        pairs = list(zip(stock.infolist(), stored.infolist(), strict=True))
        assert {i.compress_type for i in stored.infolist()} == {zipfile.ZIP_STORED}
        swapped = set()
        for old, new in pairs:
            if new.filename == old.filename:
                assert stored.read(new) == stock.read(old), old.filename
                continue
            assert (old.filename.endswith(".py"), new.filename) == (True, old.filename + "c")
            header = stored.read(new)[:16]
            assert (header[:4], int.from_bytes(header[4:8], "little")) == (magic, 0b01), new.filename
            swapped.add(old.filename)
    # Pyodide's start: its event loop, the archive modules it unpacks with, the codecs.
    assert {"pyodide/webloop.py", "shutil.py", "zipfile/__init__.py", "encodings/__init__.py"} <= swapped
    assert len(swapped) < len(pairs) / 3
    boot = (dist / "pyodide-boot.mjs").read_text()
    assert f'stdLibURL: at("/{runtime.relative_to(dist).as_posix()}/{build.STDLIB_STORED}")' in boot
    sw = (dist / "sw.js").read_text()
    assert build.STDLIB_STORED in sw and "python_stdlib.zip" not in sw
