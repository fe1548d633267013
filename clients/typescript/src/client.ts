// One agent's view of the hub over HTTP, with the same guarantees as the Python client: event ids
// made before the first try, tries again with them, waits for the rate limit, errors that name the fix.
import { HubUnreachable, MemhubError, NotAcknowledged } from "./errors.js";
import type {
  Conflict,
  ConflictFilters,
  CoreBlock,
  EventCreate,
  EventInput,
  EventStatus,
  Forgotten,
  MemhubOptions,
  PublishOptions,
  Question,
  SearchHit,
  SearchOptions,
  WaitOptions,
} from "./types.js";

// Answers worth trying again: the hub, or a proxy before it, could not take the request just then.
const RETRY_STATUSES = new Set([502, 503, 504]);
// `wait` asks every 20 ms for half a second (an idle hub stores an event in ~50 ms), then less
// often, up to once a second: a wait behind a backlog costs one request a second of the rate limit.
const FAST_POLLING_MS = 500;
const FIRST_POLL_MS = 20;
const MAX_POLL_MS = 1000;

type Query = Record<string, string | number | boolean | undefined>;

interface Request {
  method: "GET" | "POST" | "DELETE";
  path: string;
  query?: Query;
  body?: unknown;
  /** Safe to send again after a lost answer: reads, searches, and publishing (events carry their ids). */
  idempotent?: boolean;
  /** The most this call waits for the rate limit, in ms (default: the client's `rateLimitWaitMs`). */
  patienceMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const segment = (value: string) => encodeURIComponent(value);

/** A new event id: made before the first try, so that tries after a lost answer store the event once. */
function newId(): string {
  return crypto.randomUUID().replaceAll("-", "");
}

function retryAfter(response: Response): number | undefined {
  const header = response.headers.get("retry-after");
  const seconds = header === null ? NaN : Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
}

export class Memhub {
  readonly url: string;
  readonly agent: string;
  readonly channel: string | undefined;
  private readonly apiKey: string | undefined;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly backoffMs: number;
  private readonly rateLimitWaitMs: number;
  private readonly fetch: typeof fetch;

  constructor(options: MemhubOptions) {
    if (!options || typeof options.agent !== "string" || !options.agent.trim()) {
      throw new TypeError("new Memhub({ agent }): `agent` is required, the name this agent publishes as (e.g. 'wa-assistant')");
    }
    const url = options.url ?? "http://127.0.0.1:8420";
    try {
      new URL(url);
    } catch {
      throw new TypeError(`new Memhub({ url }): ${JSON.stringify(url)} is no URL; give the hub's, e.g. 'http://127.0.0.1:8420'`);
    }
    this.url = url.replace(/\/+$/, "");
    this.agent = options.agent;
    this.channel = options.channel;
    this.apiKey = options.apiKey;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.retries = options.retries ?? 3;
    this.backoffMs = options.backoffMs ?? 500;
    this.rateLimitWaitMs = options.rateLimitWaitMs ?? 10_000;
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  /** Publish one memory; resolves to its event id once the hub holds it durably. */
  async publish(text: string, options: PublishOptions = {}): Promise<string> {
    const [id] = await this.publishMany([{ ...options, text }]);
    return id as string;
  }

  /**
   * Publish up to 500 events at once; resolves to their ids once the hub holds them durably. Throws
   * MemhubError when the hub refuses them (nothing stored), NotAcknowledged when no try got an
   * answer (publish its `events` again).
   */
  async publishMany(events: EventInput[]): Promise<string[]> {
    const batch: EventCreate[] = events.map((event, index) => {
      if (typeof event?.text !== "string" || !event.text.trim()) {
        throw new TypeError(`event ${index}: \`text\` is required, the memory in plain words`);
      }
      const channel = event.channel ?? this.channel;
      const filled = { ...event, agent: this.agent, ...(channel ? { channel } : {}), id: event.id || newId() };
      return Object.fromEntries(Object.entries(filled).filter(([, v]) => v !== undefined && v !== null)) as EventCreate;
    });
    try {
      const answer = await this.call<{ ids: string[] }>({ method: "POST", path: "/v1/events", body: { events: batch }, idempotent: true });
      return answer.ids;
    } catch (error) {
      if (error instanceof MemhubError && error.status < 500) throw error; // refused: nothing stored
      throw new NotAcknowledged(batch, error);
    }
  }

  /** Where an event stands: queued, stored (searchable), rejected or failed, and whether reviewed. */
  async status(eventId: string, patienceMs?: number): Promise<EventStatus> {
    return this.call<EventStatus>({ method: "GET", path: `/v1/events/${segment(eventId)}`, patienceMs });
  }

  /**
   * Until each event is rejected, failed, or stored and reviewed (`reviewed: false`: only stored).
   * Once reviewed, `memory_id` names the memory that holds it. A rejected event's `error` says why.
   */
  wait(eventId: string, options?: WaitOptions): Promise<EventStatus>;
  wait(eventIds: string[], options?: WaitOptions): Promise<EventStatus[]>;
  async wait(ids: string | string[], options: WaitOptions = {}): Promise<EventStatus | EventStatus[]> {
    if (Array.isArray(ids)) {
      const found: EventStatus[] = [];
      for (const id of ids) found.push(await this.waitOne(id, options));
      return found;
    }
    return this.waitOne(ids, options);
  }

  private async waitOne(eventId: string, { reviewed = true, timeoutMs = 30_000 }: WaitOptions): Promise<EventStatus> {
    const start = Date.now();
    let interval = FIRST_POLL_MS;
    for (;;) {
      const found = await this.status(eventId, Math.max(timeoutMs - (Date.now() - start), 0));
      if (found.settled || (!reviewed && found.status === "stored")) return found;
      const waited = Date.now() - start;
      if (waited > timeoutMs) {
        throw new Error(`event ${eventId} still ${found.status}${found.reviewed ? "" : ", not reviewed"} after ${timeoutMs} ms: is a worker running?`);
      }
      await sleep(interval);
      if (waited > FAST_POLLING_MS) interval = Math.min(interval * 1.5, MAX_POLL_MS);
    }
  }

  /**
   * Search what this agent may see, best first. `project` and `person` widen it (`everywhere: true`:
   * every project and person the key may read); `kinds`, `agents`, `channels`, `tiers`, `states`,
   * `occurred_after`, ... narrow it; `recency` (days) and `diversity` (0 to 1) rank it.
   */
  async search(query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
    const body = { limit: 10, ...(this.channel ? { channel: this.channel } : {}), ...options, query, agent: this.agent };
    const answer = await this.call<{ hits: SearchHit[] }>({ method: "POST", path: "/v1/search", body, idempotent: true });
    return answer.hits;
  }

  /** Every conflict involving this agent, newest first (every page), narrowed by `filters`. */
  async conflicts(filters: ConflictFilters = {}): Promise<Conflict[]> {
    return this.everyPage<Conflict>("/v1/conflicts", "conflicts", { agent: this.agent, ...filters });
  }

  /**
   * Open conflicts the owner is to decide that this agent should ask about, each with the channel to
   * ask in (`ask_in`) and the answers it may take (`options`: answer -> `keep`); answer with
   * `resolveConflict`.
   */
  async questions(): Promise<Question[]> {
    return this.everyPage<Question>("/v1/questions", "questions", { agent: this.agent });
  }

  /**
   * Decide a conflict as the owner answered: `keep` a memory id (the other is superseded), or `both`.
   * A second decision is refused (409), naming the one that stands.
   */
  async resolveConflict(conflictId: string, keep: string, options: { note?: string; by?: string } = {}): Promise<Conflict> {
    const body = { keep, by: options.by ?? "owner", note: options.note ?? null };
    return this.call<Conflict>({ method: "POST", path: `/v1/conflicts/${segment(conflictId)}/resolve`, body });
  }

  /** This agent's core memory within its budget: put `.markdown` in context at session start. */
  async loadCore(options: { person?: string; project?: string; chatType?: "dm" | "group" } = {}): Promise<CoreBlock> {
    const query = { agent: this.agent, person: options.person, project: options.project, chat_type: options.chatType };
    return this.call<CoreBlock>({ method: "GET", path: "/v1/core", query });
  }

  /**
   * Forget a memory for good, as the owner asked: it, the near-duplicates merged into it and its
   * words wherever the hub kept them. Needs a key without scope limits that may write.
   */
  async forget(memoryId: string, options: { by?: string } = {}): Promise<Forgotten> {
    return this.call<Forgotten>({ method: "DELETE", path: `/v1/memories/${segment(memoryId)}`, query: { by: options.by ?? "owner" } });
  }

  private async everyPage<T>(path: string, field: string, query: Query): Promise<T[]> {
    const items: T[] = [];
    let offset: string | null = null;
    do {
      const page: Record<string, unknown> = await this.call({ method: "GET", path, query: { ...query, offset: offset ?? undefined } });
      items.push(...(page[field] as T[]));
      offset = page.next_offset as string | null;
    } while (offset !== null && offset !== undefined);
    return items;
  }

  /** The hub's JSON answer, after the tries and rate-limit waits the request allows. */
  private async call<T>(request: Request): Promise<T> {
    const idempotent = request.idempotent ?? request.method === "GET";
    let patience = request.patienceMs ?? this.rateLimitWaitMs;
    let response: Response | undefined;
    for (let tried = 0; ; tried++) {
      response = await this.tried(request, idempotent ? this.retries : 0);
      const pause = response.status === 429 ? retryAfter(response) : undefined;
      if (pause === undefined || pause * 1000 > patience || tried === this.retries) break;
      await sleep(pause * 1000); // refused before anything was done: the same request, once it goes through
      patience -= pause * 1000;
    }
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      // a proxy's page, not the hub's answer
    }
    if (response.status >= 400) {
      const detail = body && typeof body === "object" && !Array.isArray(body)
        ? ((body as { message?: unknown }).message ?? (body as { detail?: unknown }).detail)
        : body;
      throw new MemhubError(response.status, detail, retryAfter(response));
    }
    return body as T;
  }

  /** One answer, tried again up to `retries` times after a network error, a timeout or a 502/503/504. */
  private async tried(request: Request, retries: number): Promise<Response> {
    const url = new URL(this.url + request.path);
    for (const [key, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const headers: Record<string, string> = { accept: "application/json" };
    if (request.body !== undefined) headers["content-type"] = "application/json";
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    const init = { method: request.method, headers, body: request.body === undefined ? undefined : JSON.stringify(request.body) };
    for (let n = 0; ; n++) {
      try {
        const response = await this.fetch(url, { ...init, signal: AbortSignal.timeout(this.timeoutMs) });
        if (!RETRY_STATUSES.has(response.status) || n >= retries) return response;
        await response.body?.cancel();
      } catch (error) {
        if (n >= retries) throw new HubUnreachable(this.url, error);
      }
      await sleep(this.backoffMs * 2 ** n);
    }
  }
}
