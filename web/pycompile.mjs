// Build-time helper of web/build.py (issue 28): compiles the Python of the app's first path to bytecode with
// the very Pyodide the site ships (the browser's CPython: its bytecode, not the build machine's), so that a
// first visit does not compile those sources in the browser. Run by Node:
//   node web/pycompile.mjs PYODIDE_DIR JOB.json
// JOB.json: {"src": the bundle's sources, "out": an empty dir, "home": where the browser unpacks the bundle,
// "probe": the modules main.py imports, "stdlib_dir": folder name for the standard modules, "scripts": the
// bundle's programs to compile without running them (main.py)}.
// The probe is imported as in the browser (app.loader's finders installed: deferred modules stay unrun).
// Writes OUT/<path>.pyc for each of the bundle's modules that ran (sourceless bytecode, docstrings dropped:
// nothing reads them, and they were a third of the bytes), OUT/STDLIB_DIR/<module path>.pyc for each
// standard module they imported that Pyodide had not loaded at start (its stdlib zip holds sources only),
// OUT/_runtime/<path in the stdlib zip>.pyc for each module Pyodide itself imports from its zip at start
// (web/build.py puts those into the app's copy of the zip), and OUT/compiled.json: the paths compiled.
// Modules off the first path stay sources: compiled in the browser while the player is idle, they cost no
// download.
import {readFileSync} from "node:fs";
import {pathToFileURL} from "node:url";

const [pyodideDir, jobFile] = process.argv.slice(2);
const job = JSON.parse(readFileSync(jobFile, "utf8"));
const {loadPyodide} = await import(pathToFileURL(pyodideDir + "/pyodide.mjs").href);
const py = await loadPyodide({indexURL: pyodideDir + "/"});
py.FS.mkdirTree("/job/src");
py.FS.mkdirTree("/job/out");
py.FS.mount(py.FS.filesystems.NODEFS, {root: job.src}, "/job/src");
py.FS.mount(py.FS.filesystems.NODEFS, {root: job.out}, "/job/out");
py.globals.set("JOB", JSON.stringify(job));
try {
  py.runPython(`
import sys
BASELINE = set(sys.modules)  # before this script's own imports: the browser has these already

import ast
import importlib
import importlib.util
import json
import marshal
import os
import shutil

SCRIPT = set(sys.modules) - BASELINE  # this script's own: not the app's needs
job = json.loads(JOB)
home, stdlib_dir = job["home"], job["stdlib_dir"]
# The sources where the browser has them, so that imports below resolve as they will there.
shutil.copytree("/job/src", home, dirs_exist_ok=True)
sys.path.insert(0, home)
from app import loader

loader.install()
for name in job["probe"]:
    importlib.import_module(name)


def strip_docstrings(tree):
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \\
                    and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.copy_location(ast.Pass(), body[0])]
    return tree


def write_pyc(source, shown_path, dest, header=bytes(12), strip=True):
    """Bytecode: magic, then header (flags and 8 more bytes; by default flags 0 and 8 unused bytes:
    sourceless, no source to compare with), then the code, docstrings dropped unless strip is false."""
    tree = ast.parse(source, shown_path)
    code = compile(strip_docstrings(tree) if strip else tree, shown_path, "exec", dont_inherit=True)
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    with open(dest, "wb") as f:
        f.write(importlib.util.MAGIC_NUMBER + header + marshal.dumps(code))


compiled = []
# The worker's program (main.py, bundled as a module): compiled, not imported (it needs the browser).
for rel in job.get("scripts", []):
    with open(os.path.join(home, rel), encoding="utf-8") as f:
        write_pyc(f.read(), os.path.join(home, rel), os.path.join("/job/out", rel + "c"))
    compiled.append(rel + "c")
for name in sorted(set(sys.modules) - BASELINE - SCRIPT):
    module = sys.modules[name]
    if not loader.is_loaded(name):
        continue  # deferred: stays a source
    spec = module.__spec__
    origin = getattr(spec, "origin", None) or ""
    package = spec.submodule_search_locations is not None
    if origin.startswith(home + "/") and origin.endswith(".py"):
        rel = os.path.relpath(origin, home)
        with open(origin, encoding="utf-8") as f:
            write_pyc(f.read(), origin, os.path.join("/job/out", rel + "c"))
        compiled.append(rel + "c")
    elif origin.startswith(sys.prefix) and ".zip/" in origin and origin.endswith(".py"):
        rel = os.path.join(stdlib_dir, *name.split("."), *(["__init__"] if package else [])) + ".pyc"
        write_pyc(spec.loader.get_source(name), origin, os.path.join("/job/out", rel))
        compiled.append(rel)
# The runtime's own start: Pyodide imports these from its zip before any of ours runs, compiling each from
# source on every first visit (~125 modules). Unchecked hash-based bytecode without docstrings (as under
# -OO, which the standard library supports; Pyodide's own modules keep theirs), which web/build.py writes
# instead of each source in the app's stored copy of the zip: zipimport finds NAME.pyc, and uses an
# unchecked one as it is.
for name in sorted(BASELINE):
    spec = getattr(sys.modules.get(name), "__spec__", None)
    origin = getattr(spec, "origin", None) or ""
    if ".zip/" not in origin or not origin.endswith(".py"):
        continue
    raw = spec.loader.get_data(origin)
    unchecked = (0b01).to_bytes(4, "little") + importlib.util.source_hash(raw)  # hash-based, unchecked
    rel = os.path.join("_runtime", origin.split(".zip/", 1)[1] + "c")
    # Pyodide's own modules keep their docstrings: _pyodide.docstring reads them.
    strip = name.split(".")[0] not in ("pyodide", "_pyodide")
    write_pyc(raw, origin, os.path.join("/job/out", rel), unchecked, strip)
    compiled.append(rel)
with open("/job/out/compiled.json", "w") as f:
    json.dump(compiled, f)
`);
} catch (e) {
  console.error(String(e.message || e));  // the Python traceback, not Pyodide's whole source
  process.exit(1);
}
