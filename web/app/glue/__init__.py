"""The browser glue's parts that need no browser module, one screen or concern each: navigation and the
lobby's HTTP, rendering into patches, the replay viewer, UI events. ``web/src/main.py``'s ``App`` composes
them with its doors to the browser (WebSocket, HTTP, timers, the page's patches); ``self`` is that App.
"""
