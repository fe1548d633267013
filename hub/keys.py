"""Redis key layout, in one place, under one prefix."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Keys:
    prefix: str = "memhub"

    @property
    def stream(self) -> str:
        """The event stream agents publish to; workers read it as one consumer group."""
        return f"{self.prefix}:events"

    group: str = "ingest"

    def status(self, event_id: str) -> str:
        return f"{self.prefix}:event:{event_id}"

    @property
    def status_prefix(self) -> str:
        return f"{self.prefix}:event:"

    @property
    def dead_letters(self) -> str:
        return f"{self.prefix}:dlq"

    @property
    def rate_limits(self) -> str:
        """The prefix of each API key's request log (`hub.auth.ratelimit`)."""
        return f"{self.prefix}:rate"

    @property
    def drain_scheduled(self) -> str:
        """Set while a drain job waits in the queue, so at most one ever waits."""
        return f"{self.prefix}:ingest:scheduled"

    @property
    def index_scheduled(self) -> str:
        """Set while an indexing of the store waits or runs, so at most one is queued (`hub.store.indexing`)."""
        return f"{self.prefix}:store:index:scheduled"

    def derived_keys_version(self, collection: str) -> str:
        """The version of `to_payload`'s derived keys every memory in `collection` holds (`hub.store.migrations`)."""
        return f"{self.prefix}:store:{collection}:derived-keys"

    def derived_keys_claim(self, collection: str) -> str:
        """Set while a process brings `collection`'s derived keys up to date, so others leave it to that one."""
        return f"{self.prefix}:store:{collection}:derived-keys:claim"

    def reembedding(self, collection: str) -> str:
        """Set while `memhub reembed` rewrites `collection`: workers leave events on the stream meanwhile."""
        return f"{self.prefix}:store:{collection}:reembedding"

    def store_model(self, collection: str) -> str:
        """The weights hash of the model `collection` is written with now, for running workers to compare
        with their own (the store's own record is the one that counts: `hub.store.pinning`)."""
        return f"{self.prefix}:store:{collection}:model"

    def compaction_scheduled(self, agent: str) -> str:
        """Set while an over-budget compaction of `agent` waits in the queue, so at most one waits."""
        return f"{self.prefix}:compaction:{agent}:scheduled"

    @property
    def write_lock(self) -> str:
        """Held while memories are rewritten from what was just read of them (`hub.locks.writing`)."""
        return f"{self.prefix}:memories:write-lock"

    # API keys (`hub.auth.api_keys`): each key's document, its id by the hash of its token, and all ids.
    def api_key(self, key_id: str) -> str:
        return f"{self.prefix}:apikey:{key_id}"

    def api_key_by_hash(self, digest: str) -> str:
        return f"{self.prefix}:apikey-hash:{digest}"

    @property
    def api_keys(self) -> str:
        return f"{self.prefix}:apikeys"

    # The conflict ledger (`hub.conflicts.ledger`).
    def conflict(self, conflict_id: str) -> str:
        return f"{self.prefix}:conflict:{conflict_id}"

    @property
    def conflicts(self) -> str:
        """Every conflict, by when it was found."""
        return f"{self.prefix}:conflicts"

    def agent_conflicts(self, agent: str) -> str:
        """The conflicts `agent` is a side of, by when they were found."""
        return f"{self.prefix}:conflicts:agent:{agent}"

    @property
    def agent_conflicts_built(self) -> str:
        """Set once every conflict recorded before the per-agent indexes existed is in them."""
        return f"{self.prefix}:conflicts:agent-indexes-built"

    @property
    def open_conflicts(self) -> str:
        """The open conflicts, by when they were found."""
        return f"{self.prefix}:conflicts:open"

    @property
    def open_conflicts_built(self) -> str:
        """Set once every conflict open before the open index existed is in it."""
        return f"{self.prefix}:conflicts:open-index-built"

    def memory_open_conflicts(self, memory_id: str) -> str:
        """The open conflicts `memory_id` is a side of."""
        return f"{self.prefix}:memory-conflicts:{memory_id}"

    def memory_conflicts(self, memory_id: str) -> str:
        """Every conflict `memory_id` is a side of, open or decided."""
        return f"{self.prefix}:conflicts:memory:{memory_id}"

    @property
    def memory_conflicts_built(self) -> str:
        """Set once every conflict recorded before the per-memory sets existed is in them."""
        return f"{self.prefix}:conflicts:memory-indexes-built"

    @property
    def forgotten(self) -> str:
        """The tombstones of memories forgotten at the owner's request (`hub.forgetting`)."""
        return f"{self.prefix}:forgotten"

    # Promotion (`hub.promotion`).
    def proposal(self, proposal_id: str) -> str:
        return f"{self.prefix}:proposal:{proposal_id}"

    @property
    def proposals(self) -> str:
        return f"{self.prefix}:proposals"

    @property
    def promotion_uses(self) -> str:
        """How often each memory was used (`hub.promotion.usage`)."""
        return f"{self.prefix}:promotion:used"

    @property
    def weekly_review(self) -> str:
        return f"{self.prefix}:promotion:weekly"

    @property
    def weekly_assessments(self) -> str:
        return f"{self.prefix}:promotion:weekly-assessments"

    def conflict_claim(self, conflict_id: str) -> str:
        """Set by whoever decides a conflict, so two answers at once cannot both apply (`hub.locks.claimed`)."""
        return f"{self.prefix}:conflict:{conflict_id}:claim"

    def proposal_claim(self, proposal_id: str) -> str:
        """Set by whoever decides a promotion proposal: the owner, or the hub withdrawing it."""
        return f"{self.prefix}:proposal:{proposal_id}:claim"
