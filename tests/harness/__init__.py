"""The process harness for tests, benches and ``make cluster``: relays, PostgreSQL, Redis and HAProxy
as child processes on free loopback ports, and a scripted player. Not part of the product package."""
