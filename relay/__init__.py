"""Lexio relay: the authoritative aiohttp server (tables, clocks, journal, word list).

Entry points: ``lexio serve`` / ``python -m relay`` (:mod:`relay.cli`) and :func:`relay.app.create_app`.
"""

PROTOCOL_VERSION = 1

__all__ = ["PROTOCOL_VERSION"]
