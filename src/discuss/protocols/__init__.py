"""Deliberation protocols: each decides the next calls from the state on disk."""

PROTOCOLS = ("vote",)
