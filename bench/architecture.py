"""The architecture targets, read from the source (issue "Architecture II"): class sizes, import rings,
dispatch on type names, ``Any``, and the modules directly in ``relay/``.

Nothing is run or timed: the figures are the same on any machine. Prints ``name<TAB>value<TAB>unit``
lines (bench/run_all.py) and, on stderr, what each figure is made of. ``--check`` exits 1 when a target is
missed, so that a target met can be kept met.

- class lines: a class's own lines plus those of the in-repo classes it inherits from (a mixin's lines
  count for every class that mixes it in); target at most 400 in engine/, relay/, web/.
- import rings: strongly connected groups of modules in relay/ and web/app/ through their imports,
  function-level imports included, ``if TYPE_CHECKING:`` imports excluded (never run); target none.
- type-name dispatch: ``type(x).__name__`` compared or matched; target none.
- Any: occurrences of the name ``Any`` in relay/ and web/app/; target at most 60.
- modules directly in relay/: target at most 12.
- cluster branches: ``cluster is None`` / ``is not None`` tests outside relay/cluster/ (the single-host
  code asks its hosting, relay/tables/hosting.py); target none.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLASS_ROOTS = ("engine", "relay", "web")
RING_ROOTS = ("relay", "web/app")
ANY_ROOTS = ("relay", "web/app")
MAX_CLASS_LINES = 400
MAX_ANY = 60
MAX_RELAY_MODULES = 12


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[:2] == ["web", "app"]:
        parts = parts[1:]  # the browser imports web/app as the package "app"
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def sources(*roots: str) -> Iterator[Path]:
    for root in roots:
        # web/dist is the built copy of web/src and web/app
        skip = {"__pycache__", "dist"}
        yield from sorted(p for p in (ROOT / root).rglob("*.py") if not skip & set(p.parts))


@dataclass
class ClassInfo:
    name: str
    module: str
    lines: int
    bases: list[str] = field(default_factory=list)


def classes() -> dict[str, ClassInfo]:
    """Every top-level class by ``module.Name``, its bases resolved to the same keys where in-repo."""
    found: dict[str, ClassInfo] = {}
    imported: dict[str, dict[str, str]] = {}
    for path in sources(*CLASS_ROOTS):
        mod = module_name(path)
        tree = ast.parse(path.read_text(), str(path))
        names: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        imported[mod] = names
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                end = node.end_lineno or node.lineno
                info = ClassInfo(node.name, mod, end - node.lineno + 1)
                for base in node.bases:
                    if isinstance(base, ast.Name):
                        info.bases.append(names.get(base.id, f"{mod}.{base.id}"))
                found[f"{mod}.{node.name}"] = info
    return found


def class_lines(key: str, found: dict[str, ClassInfo], seen: set[str] | None = None) -> int:
    """A class's lines with those of every in-repo class it inherits from, each counted once."""
    seen = set() if seen is None else seen
    if key in seen or key not in found:
        return 0
    seen.add(key)
    info = found[key]
    return info.lines + sum(class_lines(base, found, seen) for base in info.bases)


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports(path: Path, mod: str, known: set[str]) -> set[str]:
    """The in-repo modules ``path`` imports when it runs (top level or inside functions)."""
    tree = ast.parse(path.read_text(), str(path))
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _type_checking(node):
            for inner in node.body:
                skip.update(id(n) for n in ast.walk(inner))
    package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            # a name imported from a package is its submodule when one has that name, else the package's
            targets = [f"{base}.{a.name}" for a in node.names]
        for target in targets:
            # the longest in-repo module the name starts with (a submodule, else its package)
            parts = target.split(".")
            for n in range(len(parts), 0, -1):
                candidate = ".".join(parts[:n])
                if candidate in known and candidate != mod:
                    out.add(candidate)
                    break
    return out


def rings() -> list[list[str]]:
    """Import rings: strongly connected components of two or more modules (Tarjan)."""
    paths = {module_name(p): p for p in sources(*RING_ROOTS)}
    known = set(paths)
    graph = {m: sorted(imports(p, m, known)) for m, p in paths.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    sys.setrecursionlimit(10_000)
    for v in graph:
        if v not in index:
            visit(v)
    return out


def type_name_dispatch() -> list[str]:
    """``type(x).__name__`` used in a comparison or a match (formatting it in a message is fine)."""
    found = []
    for path in sources(*RING_ROOTS):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Compare | ast.Match):
                continue
            for inner in ast.walk(node):
                if (
                    isinstance(inner, ast.Attribute)
                    and inner.attr == "__name__"
                    and isinstance(inner.value, ast.Call)
                    and isinstance(inner.value.func, ast.Name)
                    and inner.value.func.id == "type"
                ):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def any_count() -> dict[str, int]:
    counts: dict[str, int] = {}
    for path in sources(*ANY_ROOTS):
        tree = ast.parse(path.read_text(), str(path))
        n = sum(1 for node in ast.walk(tree) if isinstance(node, ast.Name) and node.id == "Any")
        n += sum(1 for node in ast.walk(tree) if isinstance(node, ast.Attribute) and node.attr == "Any")
        if n:
            counts[str(path.relative_to(ROOT))] = n
    return counts


def cluster_branches() -> list[str]:
    """``x.cluster is None`` (or ``is not None``) outside relay/cluster/."""
    found = []
    for path in sources("relay"):
        if "cluster" in path.relative_to(ROOT / "relay").parts[:1]:
            continue
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Compare)
                and isinstance(node.left, ast.Attribute)
                and node.left.attr == "cluster"
                and isinstance(node.ops[0], ast.Is | ast.IsNot)
            ):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args()

    found = classes()
    sizes = sorted(((class_lines(k, found), k) for k in found), reverse=True)
    big = [(n, k) for n, k in sizes if n > MAX_CLASS_LINES]
    for n, k in sizes[:8]:
        print(f"# class {k}: {n} lines", file=sys.stderr)
    groups = rings()
    for g in groups:
        print(f"# import ring ({len(g)}): {' '.join(g)}", file=sys.stderr)
    dispatch = type_name_dispatch()
    for where in dispatch:
        print(f"# type-name dispatch: {where}", file=sys.stderr)
    anys = any_count()
    for path, n in sorted(anys.items(), key=lambda kv: -kv[1])[:10]:
        print(f"# Any: {path} {n}", file=sys.stderr)
    direct = sorted(p.name for p in (ROOT / "relay").glob("*.py"))
    branches = cluster_branches()
    for where in branches:
        print(f"# cluster branch: {where}", file=sys.stderr)

    figures = [
        ("largest_class_lines", sizes[0][0], "lines", sizes[0][0] <= MAX_CLASS_LINES),
        ("classes_over_400_lines", len(big), "classes", not big),
        ("import_rings", len(groups), "rings", not groups),
        ("modules_in_rings", sum(len(g) for g in groups), "modules", not groups),
        ("type_name_dispatch", len(dispatch), "sites", not dispatch),
        ("any_relay_web_app", sum(anys.values()), "names", sum(anys.values()) <= MAX_ANY),
        ("relay_direct_modules", len(direct), "modules", len(direct) <= MAX_RELAY_MODULES),
        ("cluster_branches", len(branches), "sites", not branches),
    ]
    missed = []
    for name, value, unit, ok in figures:
        print(f"{name}\t{value}\t{unit}")
        if not ok:
            missed.append(name)
    if missed:
        print(f"# targets missed: {', '.join(missed)}", file=sys.stderr)
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
