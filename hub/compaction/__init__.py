"""Per-agent compaction and the core memory block.

- `core_block`: the agent's core memory as markdown, within a hard budget;
- `scan`, `duplicates`, `plan`, `apply`, `compact`: what one agent's compaction changes, and doing it;
- `jobs`: compaction as RQ jobs, one per agent; `sweep`: the conflict sweep over the day;
- `schedule`: the midday, nightly and weekly runs on RQ's cron scheduler, in the owner's zone;
- `commands`: `memhub maintenance` and `memhub cron`.
"""
