"""Several relays: the bus between nodes, sockets relayed over it, and who owns which table."""
