"""Lexio web client: UI logic in plain Python (importable on CPython without PyScript).

Browser glue lives in ``web/src/main.py`` (the PyScript entry); everything here is pure and tested in
``tests/web`` with the real engine.
"""
