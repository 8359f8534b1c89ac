"""The hardening limits are `lexio serve` flags with LEXIO_* variables, as every other setting."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from relay.config import HARDENING_FLAGS, Config, ConfigError, config_from_args

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for key in list(os.environ):
        if key.startswith("LEXIO_"):
            monkeypatch.delenv(key)
    return monkeypatch


def _field(flag: str) -> str:
    return flag.removeprefix("--").replace("-", "_")


def test_every_limit_has_a_flag_a_variable_and_the_documented_default(clean_env: pytest.MonkeyPatch) -> None:
    defaults = config_from_args(["serve"])
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for flag, kind, default, _what in HARDENING_FLAGS:
        assert getattr(defaults, _field(flag)) == kind(default) == getattr(Config(), _field(flag)), flag
        env = "LEXIO_" + _field(flag).upper()
        assert f"| `{flag}` | `{env}` | `{default}` |" in readme, flag
        clean_env.setenv(env, "7")
        assert getattr(config_from_args(["serve"]), _field(flag)) == 7, env
        assert getattr(config_from_args(["serve", flag, "9"]), _field(flag)) == 9, flag  # the flag wins
        clean_env.delenv(env)


@pytest.mark.parametrize("flag", [f for f, *_ in HARDENING_FLAGS])
def test_a_limit_must_be_positive(clean_env: pytest.MonkeyPatch, flag: str) -> None:
    with pytest.raises(ConfigError, match=flag):
        config_from_args(["serve", flag, "0"])


def test_a_malformed_limit_variable_stops_serve_with_status_2(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEXIO_")}
    env.update({"PYTHONPATH": str(REPO), "LEXIO_MAX_CONNECTIONS_PER_ADDRESS": "lots"})
    proc = subprocess.run(
        [sys.executable, "-m", "relay", "serve"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert "--max-connections-per-address" in proc.stderr
