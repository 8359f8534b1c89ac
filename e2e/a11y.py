"""axe-core in the e2e suite (issue 11, point 10): the pinned npm tarball (web/build.py PACKAGES["axe"],
sha512 + sha256 checked, cached in .cache/npm) is injected into the page under test; never a CDN."""

from __future__ import annotations

import importlib.util
import io
import tarfile
from functools import cache
from typing import Any

from e2e_ui import ROOT
from playwright.sync_api import Page


def _web_build() -> Any:
    # web/build.py by its path: the one place that pins and checks npm tarballs (a module named "build"
    # could be another one on sys.path, e.g. lexicons/build.py or PyPI's build).
    spec = importlib.util.spec_from_file_location("lexio_web_build", ROOT / "web" / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@cache
def axe_source() -> str:
    with tarfile.open(fileobj=io.BytesIO(_web_build().fetch("axe")), mode="r:gz") as tar:
        member = tar.extractfile("package/axe.min.js")
        assert member is not None, "axe-core tarball lacks axe.min.js"
        return member.read().decode("utf-8")


def axe_violations(page: Page) -> list[dict[str, Any]]:
    """Every axe-core violation on the page as it is now (WCAG 2.x A/AA and best practices)."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.add_script_tag(content=axe_source())
    result = page.evaluate(
        """async () => {
          const r = await axe.run(document, {resultTypes: ['violations']});
          return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
              nodes: v.nodes.slice(0, 5).map(n => n.target.join(' ') + ' :: ' + (n.failureSummary || '')),
              count: v.nodes.length}));
        }"""
    )
    return list(result)


def assert_no_violations(page: Page, where: str) -> None:
    found = axe_violations(page)
    assert not found, f"axe-core on {where}: " + "; ".join(
        f"{v['id']} ({v['impact']}, {v['count']} nodes): {v['help']} e.g. {v['nodes'][:2]}" for v in found
    )
