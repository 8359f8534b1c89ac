"""The architecture's rules, read off the source (bench/architecture.py prints the same figures): small
classes, no import ring, no dispatch on type names, little ``Any``, a relay folder that shows its layers,
and single-host code that asks its hosting instead of testing for cluster mode."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Loaded by its path: putting bench/ on sys.path would shadow the engine package with bench/engine.py.
_spec = importlib.util.spec_from_file_location("lexio_bench_architecture", ROOT / "bench" / "architecture.py")
assert _spec is not None and _spec.loader is not None
arch = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = arch  # dataclasses look their module up while the class is built
_spec.loader.exec_module(arch)


def test_no_class_counting_its_in_repo_bases_is_over_400_lines() -> None:
    found = arch.classes()
    big = {k: arch.class_lines(k, found) for k in found if arch.class_lines(k, found) > arch.MAX_CLASS_LINES}
    assert big == {}


def test_relay_and_web_app_modules_import_each_other_in_no_ring() -> None:
    assert arch.rings() == []


def test_nothing_dispatches_on_a_type_name() -> None:
    assert arch.type_name_dispatch() == []


def test_any_is_rare_in_relay_and_web_app() -> None:
    counts = arch.any_count()
    assert sum(counts.values()) <= arch.MAX_ANY, counts


def test_relay_keeps_at_most_twelve_modules_beside_its_packages() -> None:
    direct = sorted(p.name for p in (ROOT / "relay").glob("*.py"))
    assert len(direct) <= arch.MAX_RELAY_MODULES, direct


def test_only_relay_cluster_tests_for_cluster_mode() -> None:
    assert arch.cluster_branches() == []


def test_the_import_walker_counts_imports_inside_functions(tmp_path: Path) -> None:
    # A ring closed by a function-level import is a ring: the walker must see that import.
    (tmp_path / "a.py").write_text("def f(x):\n    import b\n    return b\n")
    (tmp_path / "b.py").write_text("import a\n")
    known = {"a", "b"}
    assert arch.imports(tmp_path / "a.py", "a", known) == {"b"}
    assert arch.imports(tmp_path / "b.py", "b", known) == {"a"}
