"""The browser glue, made of parts that import no browser module: :class:`~app.glue.client.Client` builds
them on the browser's doors (:mod:`app.glue.doors`: the page, sockets, timers, HTTP, tasks), which
``web/src/main.py`` implements with Pyodide and tests/web with fakes. Each part gets what it uses:
the shared :class:`~app.glue.session.Session` and :class:`~app.glue.session.PagePatch`, the doors, and the
other parts it calls (rendering, the relay's socket and API, navigation, the replay viewer, UI events).
"""
