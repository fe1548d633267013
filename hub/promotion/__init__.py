"""Promotion: memories move from daily episodes toward long-term and core memory, with reasons shown.

`signals` reads why a memory matters (`context` gathers what that needs from the store and Redis),
`score` turns signals into a decision, `promoter` acts on it: a tier move (`tiers`, recorded in the
memory's history), a proposal for the owner (`proposals`), or the weekly review list (`weekly`).
`usage` counts agents' reports that a memory was used; `jobs` enqueues the scoring job.
"""
