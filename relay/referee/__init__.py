"""The referee's layers, one job each; :class:`relay.tables.Referee` composes them."""
