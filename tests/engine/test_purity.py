"""The engine is pure and portable: standard library only, no I/O, no clock, no randomness of its own."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "engine"
# engine/gcg.py is the one module allowed to touch files (its command line); it stays stdlib-only too.
CORE = sorted(p for p in ENGINE.rglob("*.py") if p.name != "gcg.py")
FORBIDDEN_MODULES = {"time", "datetime", "os", "io", "socket", "secrets", "subprocess", "pathlib", "shutil",
                     "tempfile", "threading", "asyncio", "urllib", "http"}  # fmt: skip


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.add(node.module.split(".")[0])
    return out


def test_the_engine_imports_only_the_standard_library_and_itself() -> None:
    for path in sorted(ENGINE.rglob("*.py")):
        foreign = imported_modules(path) - set(sys.stdlib_module_names) - {"engine", "__future__"}
        assert not foreign, f"{path.name} imports {foreign}"


def test_the_rules_core_reads_no_clock_no_file_and_no_module_randomness() -> None:
    for path in CORE:
        used = imported_modules(path) & FORBIDDEN_MODULES
        assert not used, f"{path.name} imports {used}"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in {"open", "input", "print", "exec", "eval"}, (
                    f"{path.name}: {node.func.id}"
                )
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "random"
            ):
                # random.Random may be named as a type; the module's own generator may not be used.
                assert node.attr == "Random", f"{path.name} uses random.{node.attr}"


def test_the_engine_ships_py_typed() -> None:
    assert (ENGINE / "py.typed").exists()


def test_importing_the_engine_opens_no_file_and_starts_no_thread() -> None:
    code = (
        "import sys, builtins, io, threading\n"
        "opened = []\n"
        "real = builtins.open\n"
        "builtins.open = lambda *a, **k: opened.append(a) or real(*a, **k)\n"
        "io.open = builtins.open\n"
        "before = threading.active_count()\n"
        "import engine\n"
        "assert not opened, opened\n"
        "assert threading.active_count() == before\n"
        "assert engine.get_variant('lexio').tile_count == 102\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
