"""Markdown pages rendered from memories, in the shapes agents already keep: daily notes, project files."""
