// What a call throws: the hub's refusal, or no answer at all for events that may have been stored.
import type { EventCreate } from "./types.js";

/** The hub refused a request: `status` and its explanation (`detail`) say what to fix. */
export class MemhubError extends Error {
  readonly status: number;
  readonly detail: unknown;
  /** Seconds until a request refused for the rate limit (429) would go through. */
  readonly retryAfter: number | undefined;

  constructor(status: number, detail: unknown, retryAfter?: number) {
    super(`memhub answered ${status}: ${describe(detail)}`);
    this.name = "MemhubError";
    this.status = status;
    this.detail = detail;
    this.retryAfter = retryAfter;
  }
}

/** The hub could not be reached at all (not running, wrong URL, a network down): says which URL. */
export class HubUnreachable extends Error {
  constructor(url: string, cause: unknown) {
    super(`could not reach the hub at ${url} after every try (${describe(cause)}): is it running (memhub up), and is the url right?`, { cause });
    this.name = "HubUnreachable";
  }
}

/**
 * A publish that got no answer after its last try: it may have reached the hub, or not. `events`
 * carry the ids they were given before the first try: `publishMany(error.events)` stores each once,
 * whether or not a try got through (publishing the text again would not).
 */
export class NotAcknowledged extends Error {
  readonly events: EventCreate[];
  readonly eventIds: string[];

  constructor(events: EventCreate[], cause: unknown) {
    const ids = events.map((e) => e.id ?? "");
    const shown = ids.slice(0, 3).join(", ") + (ids.length > 3 ? ", ..." : "");
    super(
      `no answer for ${events.length} event(s) (${shown}) after every try (${describe(cause)}); they ` +
        "may be stored: publishMany(error.events) again, with these ids, stores each once",
      { cause },
    );
    this.name = "NotAcknowledged";
    this.events = events;
    this.eventIds = ids;
  }
}

/** The hub's detail in a line: a validation error's field and what is wrong with it. */
function describe(detail: unknown): string {
  if (detail instanceof Error) return detail.cause instanceof Error ? `${detail.message}: ${detail.cause.message}` : detail.message;
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail)) {
    return detail
      .map((issue: { loc?: unknown[]; msg?: string }) =>
        issue && typeof issue === "object" && "msg" in issue ? `${(issue.loc ?? []).join(".")}: ${issue.msg}` : JSON.stringify(issue),
      )
      .join("; ");
  }
  return JSON.stringify(detail);
}
