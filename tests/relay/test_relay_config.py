"""`lexio serve` settings: every flag has its LEXIO_* variable, flags win, bad values are clean errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from relay.config import ConfigError, config_from_args

ENV = {
    "LEXIO_HOST": "0.0.0.0",
    "LEXIO_PORT": "9090",
    "LEXIO_DB": "/srv/lexio/j.sqlite3",
    "LEXIO_LEXICON": "/srv/words.txt",
    "LEXIO_STATIC": "/srv/dist",
    "LEXIO_TURN_SECONDS": "45",
    "LEXIO_GRACE_SECONDS": "7.5",
    "LEXIO_WAITING_GRACE_SECONDS": "60",
    "LEXIO_ALLOW_ORIGIN": "https://a.example, https://b.example/",
    "LEXIO_PUBLIC_URL": "https://lexio.example.org",
    "LEXIO_LOG_JSON": "1",
    "LEXIO_LOG_LEVEL": "debug",
    "LEXIO_BOT_DELAY_SECONDS": "0.5,1",
    "LEXIO_DB_SYNCHRONOUS": "full",
    "LEXIO_CREATE_BURST": "5",
    "LEXIO_CREATE_PER_SECOND": "0.25",
}


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    import os

    for key in list(os.environ):
        if key.startswith("LEXIO_"):
            monkeypatch.delenv(key)
    return monkeypatch


def test_every_setting_comes_from_its_environment_variable(clean_env: pytest.MonkeyPatch) -> None:
    for key, value in ENV.items():
        clean_env.setenv(key, value)
    c = config_from_args(["serve"])
    assert (c.host, c.port, c.db, c.lexicon, c.static) == (
        "0.0.0.0",
        9090,
        Path("/srv/lexio/j.sqlite3"),
        "/srv/words.txt",
        Path("/srv/dist"),
    )
    assert (c.turn_seconds, c.grace_seconds, c.waiting_grace_seconds) == (45, 7.5, 60.0)
    assert c.allow_origins == ("https://a.example", "https://b.example")
    assert c.public_url == "https://lexio.example.org"
    assert (c.log_json, c.log_level, c.bot_delay_seconds) == (True, "DEBUG", (0.5, 1.0))
    assert (c.db_synchronous_full, c.create_burst, c.create_per_second) == (True, 5.0, 0.25)
    # A flag beats its variable.
    assert config_from_args(["serve", "--port", "7000", "--turn-seconds", "600"]).port == 7000


def test_defaults_without_flags_or_variables(clean_env: pytest.MonkeyPatch) -> None:
    c = config_from_args(["serve"])
    assert (c.host, c.port, c.turn_seconds, c.grace_seconds, c.public_url) == (
        "127.0.0.1",
        8080,
        120,
        10.0,
        None,
    )
    assert (c.log_json, c.test_seed, c.db_synchronous_full) == (False, None, False)


@pytest.mark.parametrize(
    ("key", "value", "flag"),
    [
        ("LEXIO_PORT", "http", "--port"),
        ("LEXIO_TURN_SECONDS", "2min", "--turn-seconds"),
        ("LEXIO_GRACE_SECONDS", "ten", "--grace-seconds"),
        ("LEXIO_CREATE_BURST", "", "--create-burst"),
    ],
)
def test_a_malformed_variable_is_a_usage_error_naming_its_flag(
    clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], key: str, value: str, flag: str
) -> None:
    clean_env.setenv(key, value)
    with pytest.raises(SystemExit) as exit_:
        config_from_args(["serve"])
    assert exit_.value.code == 2
    assert flag in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["serve", "--turn-seconds", "29"],
        ["serve", "--turn-seconds", "601"],
        ["serve", "--grace-seconds", "-1"],
        ["serve", "--port", "70000"],
        ["serve", "--bot-delay-seconds", "fast"],
        ["serve", "--public-url", "lexio.example.org"],
    ],
)
def test_out_of_range_settings_are_refused(clean_env: pytest.MonkeyPatch, argv: list[str]) -> None:
    with pytest.raises(ConfigError):
        config_from_args(argv)


def test_an_unknown_durability_from_the_environment_is_refused(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("LEXIO_DB_SYNCHRONOUS", "fulll")
    with pytest.raises(ConfigError, match="LEXIO_DB_SYNCHRONOUS"):
        config_from_args(["serve"])


def test_trusted_proxies_come_from_flags_and_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEXIO_TRUSTED_PROXIES", "10.0.0.0/8, ::1")
    c = config_from_args(["serve", "--trusted-proxy", "127.0.0.1"])
    assert [str(n) for n in c.trusted_proxies] == ["127.0.0.1/32", "10.0.0.0/8", "::1/128"]
    with pytest.raises(ConfigError, match=r"--trusted-proxy 'proxy\.local'"):
        config_from_args(["serve", "--trusted-proxy", "proxy.local"])


def test_the_client_address_is_read_from_x_forwarded_for_only_through_a_trusted_proxy() -> None:
    direct = config_from_args(["serve"])
    # No trusted proxy: the header is anybody's to write, so it is ignored.
    assert direct.client_address("203.0.113.9", "198.51.100.1") == "203.0.113.9"
    proxied = config_from_args(["serve", "--trusted-proxy", "127.0.0.1", "--trusted-proxy", "10.0.0.0/8"])
    assert proxied.client_address("127.0.0.1", "198.51.100.1") == "198.51.100.1"
    # What the client wrote itself sits left of what the proxies appended: the rightmost untrusted wins.
    assert proxied.client_address("127.0.0.1", "6.6.6.6, 198.51.100.1, 10.1.2.3") == "198.51.100.1"
    # A peer that is not a trusted proxy cannot pick its address.
    assert proxied.client_address("203.0.113.9", "198.51.100.1") == "203.0.113.9"
    # Junk or nothing: the last trusted hop stands for the client.
    assert proxied.client_address("127.0.0.1", "not-an-ip") == "127.0.0.1"
    assert proxied.client_address("127.0.0.1", None) == "127.0.0.1"
    assert proxied.client_address("127.0.0.1", "10.9.9.9") == "10.9.9.9"
    assert proxied.client_address(None, "198.51.100.1") == "?"


def test_proxy_and_client_addresses_are_read_in_the_forms_proxies_write_them() -> None:
    proxied = config_from_args(["serve", "--trusted-proxy", "127.0.0.1"])
    # A dual-stack listener sees the proxy as an IPv4-mapped IPv6 address.
    assert proxied.client_address("::ffff:127.0.0.1", "198.51.100.1") == "198.51.100.1"
    # Ports and brackets are dropped, and IPv6 is written one way (one limit per client, not per spelling).
    assert proxied.client_address("127.0.0.1", "198.51.100.1:5555") == "198.51.100.1"
    assert proxied.client_address("127.0.0.1", "[2001:DB8::1]:443") == "2001:db8::1"
    assert proxied.client_address("127.0.0.1", "2001:DB8:0::1") == "2001:db8::1"
