// The hub's models by name, from the generated OpenAPI types (schema.ts), and what each call takes.
import type { components } from "./schema.js";

type Schemas = components["schemas"];

export type EventCreate = Schemas["EventCreate"];
export type EventStatus = Schemas["EventStatusPublic"];
export type SearchRequest = Schemas["SearchRequest"];
export type SearchHit = Schemas["SearchHit"];
export type Conflict = Schemas["Conflict"];
export type ConflictStatus = Schemas["ConflictStatus"];
export type Severity = Schemas["Severity"];
export type Question = Schemas["Question"];
export type CoreBlock = Schemas["CoreBlock"];
export type Forgotten = Schemas["Forgotten"];
export type Kind = Schemas["Kind"];
export type Scope = Schemas["Scope"];

/** An event's fields besides its text and agent (the client's): kind, scope, project, evidence, ... */
export type PublishOptions = Partial<Omit<EventCreate, "text" | "agent">>;

/** One event for `publishMany`: its text and any of `PublishOptions`. */
export type EventInput = { text: string } & PublishOptions;

/** Filters and ranking for `search`; `project` and `person` widen it, the rest narrow it. */
export type SearchOptions = Partial<Omit<SearchRequest, "query" | "agent">>;

export interface ConflictFilters {
  status?: ConflictStatus;
  severity?: Severity;
  scope?: Scope;
  project?: string;
  person?: string;
}

export interface WaitOptions {
  /** Wait for the review too (default), after which `memory_id` is final; false: only until stored. */
  reviewed?: boolean;
  /** Give up after this long (default 30 000 ms), with an error naming the event and where it stands. */
  timeoutMs?: number;
}

export interface MemhubOptions {
  /** The hub, e.g. http://127.0.0.1:8420 (`memhub up`'s default). */
  url?: string;
  /** The name this agent publishes and searches as, e.g. `wa-assistant`. */
  agent: string;
  /** Where it talks to the owner (whatsapp, telegram, ...): every event's channel unless it names one. */
  channel?: string;
  /** The agent's key, when the hub checks keys (MEMHUB_AUTH=true). */
  apiKey?: string;
  /** Each try's limit (default 30 000 ms). */
  timeoutMs?: number;
  /** Tries after the first, for a dropped connection, a timeout or a 502/503/504 (default 3). */
  retries?: number;
  /** The first wait between tries, doubled each time (default 500 ms). */
  backoffMs?: number;
  /** The most a call waits in all for the key's rate limit (429 Retry-After; default 10 000 ms; 0: throw at once). */
  rateLimitWaitMs?: number;
  /** A fetch of your own (tests, proxies); the global one by default. */
  fetch?: typeof fetch;
}
