"""The HTTP side: views, middlewares, the WebSocket upgrade and the game sockets' protocol object."""
