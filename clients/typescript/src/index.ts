// memhub-client: publish memories to a shared memory hub for AI agents, and search them.
export { Memhub } from "./client.js";
export { HubUnreachable, MemhubError, NotAcknowledged } from "./errors.js";
export type * from "./types.js";
export type { components, paths } from "./schema.js";
