"""How the browser loads the app's Python (issue 28): only what the first screen needs, first.

Two meta-path finders, installed by ``web/src/pyodide-boot.mjs`` before the first import (so they are in the
interpreter snapshot too) and by the first-path test (tests/web/test_web_first_path.py); never on the
relay's side, and CPython's tests import everything eagerly as before:

- **Deferred modules** (:data:`DEFERRED`): screens off the path to the first answer (the replay viewer and
  its GCG parser, the end screen's analysis). The account and profile screens are drawn into every
  screen's dialogs and home's "My games": on the first path. Importing one binds a module
  whose body runs on its first attribute access (``importlib.util.LazyLoader``), so ``from app import
  replay`` at the top of a first-path module costs a file lookup, not the module. ``web/src/main.py``
  executes them one by one once the first screen has answered, while the player is idle
  (:func:`prefetch_one`): by the time the player opens one of those screens it is already there.
- **Compiled standard library**: Pyodide's ``python_stdlib.zip`` holds sources only, so each standard
  module the app imports is compiled in the browser (tens of ms each on a desktop, four times more on a
  phone). ``web/build.py`` compiles those the first path needs with the same Pyodide at build time and
  ships their bytecode in the app bundle (:data:`STDLIB_DIR`); this finder loads them from there, and the
  rest of their package still comes from the zip. The app's own modules are shipped as bytecode too
  (sourceless ``.pyc``), found by the usual finder. (The first path used to need ``html`` and its 2,000
  entities, and ``urllib.parse``, for one function each: app.markup has them; none is needed today.)
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Sequence
from types import ModuleType

# Off the first path (the home screen and a table link's first screen, up to the first answer). Their
# ``from app.X import name`` importers elsewhere would run them at once: those import the module instead
# (``from app import X``) or import inside the function that needs it.
DEFERRED: tuple[str, ...] = (
    "engine.gcg",  # the GCG parser: the replay viewer, the export (argparse and gzip with it)
    "app.replay_analysis",
    "app.replay",
    "app.analysis",  # the end screen's "what could I have played"
    # Standard modules imported by a plain ``import`` whose body the first screen never needs: secrets (and
    # hmac with it) for the seat's request ids.
    "secrets",
)
# Executed when idle after the first answer, in this order: a deferred module's heavy imports first, each in
# its own slice (argparse alone is a third of the GCG parser's cost), so that no slice keeps a player's
# keystroke waiting long.
PREFETCH: tuple[str, ...] = (
    "gettext",
    "argparse",
    "gzip",
    *DEFERRED,
    "app.ending",
    "app.follow",
    "app.played",
)
# The class of a module whose body has not run yet (LazyLoader's; private, hence looked up).
_LAZY: type = getattr(importlib.util, "_LazyModule", type(None))
# Where the bundle's compiled standard modules are, relative to the bundle's root (web/build.py writes them).
STDLIB_DIR = "_stdlib"


class _Deferred(importlib.abc.MetaPathFinder):
    """Finds the deferred modules with the rest of the meta path, then makes their loader lazy."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = frozenset(names)

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.names:
            return None
        for finder in sys.meta_path:
            if finder is self or isinstance(finder, _Deferred):
                continue
            find = getattr(finder, "find_spec", None)
            spec: importlib.machinery.ModuleSpec | None = (
                find(fullname, path, target) if find is not None else None
            )
            if spec is not None and spec.loader is not None:
                spec.loader = importlib.util.LazyLoader(spec.loader)
                return spec
        return None


class _CompiledStdlib(importlib.abc.MetaPathFinder):
    """Standard modules from the bytecode shipped in the bundle (``<root>/<name as path>.pyc``)."""

    def __init__(self, root: str) -> None:
        self.root = root

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        base = os.path.join(self.root, *fullname.split("."))
        for pyc, package in ((base + ".pyc", False), (os.path.join(base, "__init__.pyc"), True)):
            if not os.path.isfile(pyc):
                continue
            # The zip's own spec says where the package's other modules are (urllib.request stays there).
            own = importlib.machinery.PathFinder.find_spec(fullname, path)
            if own is None:
                return None
            loader = importlib.machinery.SourcelessFileLoader(fullname, pyc)
            locations = own.submodule_search_locations if package else None
            return importlib.util.spec_from_file_location(
                fullname, pyc, loader=loader, submodule_search_locations=locations
            )
        return None


def install(bundle_root: str | None = None, deferred: Sequence[str] = DEFERRED) -> None:
    """Put the finders first on the meta path (once); ``bundle_root``: where the bundle was unpacked."""
    if any(isinstance(f, _Deferred) for f in sys.meta_path):
        return
    if bundle_root is not None and os.path.isdir(os.path.join(bundle_root, STDLIB_DIR)):
        sys.meta_path.insert(0, _CompiledStdlib(os.path.join(bundle_root, STDLIB_DIR)))
    sys.meta_path.insert(0, _Deferred(deferred))


def is_loaded(name: str) -> bool:
    """Has ``name``'s body run? (Imported and deferred is not loaded; never imported is not either.)"""
    module = sys.modules.get(name)
    # type(), not an attribute: any attribute access would run a deferred module's body.
    return module is not None and not issubclass(type(module), _LAZY)


def prefetch_one(done: set[str]) -> str | None:
    """Run the next module of :data:`PREFETCH` not yet loaded; return its name, or None when all are.

    ``done``: the names already handled (the caller keeps it between calls)."""
    for name in PREFETCH:
        if name in done:
            continue
        done.add(name)
        if is_loaded(name):
            continue
        module = importlib.import_module(name)
        module.__dict__  # noqa: B018  (an attribute access runs a deferred module's body)
        return name
    return None
