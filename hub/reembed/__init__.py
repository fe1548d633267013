"""Switching a hub to another embedding model: `memhub reembed --model ...`."""
