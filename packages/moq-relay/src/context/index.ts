/**
 * What a session shares with the parts it delegates to (serving, upstream, announces): the
 * context itself, stream I/O with the control backlog behind it, role changes, limits, stats and
 * the byte budget as the session reports to it.
 * @module
 */
export type { SessionContext } from "./context.js";
export { ControlBacklog } from "./control-backlog.js";
export { framingIo, type StreamIo } from "./stream-io.js";
export { refuse, turnDown, type AnsweredRole, type IgnoreRole, type RoleChanges, type StreamFate } from "./role-table.js";
export { DEFAULT_SESSION_LIMITS, type SessionLimits } from "./limits.js";
export { NO_STATS, type SessionStats } from "./stats.js";
export { budgetMemory, NO_MEMORY, type SessionMemory } from "./memory.js";
