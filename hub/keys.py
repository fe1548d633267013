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

    def conflict_claim(self, conflict_id: str) -> str:
        """Set by whoever decides a conflict, so two answers at once cannot both apply (`hub.locks.claimed`)."""
        return f"{self.prefix}:conflict:{conflict_id}:claim"

    def proposal_claim(self, proposal_id: str) -> str:
        """Set by whoever decides a promotion proposal: the owner, or the hub withdrawing it."""
        return f"{self.prefix}:proposal:{proposal_id}:claim"
