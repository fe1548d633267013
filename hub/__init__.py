"""memhub: a shared memory hub for AI agents."""

__version__ = "0.1.0"
