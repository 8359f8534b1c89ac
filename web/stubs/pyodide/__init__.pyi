"""Pyodide (in the browser only); the app uses :mod:`pyodide.ffi`."""
