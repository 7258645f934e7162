/**
 * @module stores/embedded/worker-protocol
 * The messages between the serving thread and the store worker thread. Internal to the embedded
 * store (no wire or event shape is defined here: events cross as the contracts' `GatewayEvent`, serialised).
 * Every request carries an id and gets exactly one `reply`; `changes` messages are posted before the
 * reply of the call that caused them, so a caller sees its lookups current when its promise resolves.
 */
import type { SessionsQuery, UsageLogsQuery, UsageOverviewQuery } from '../../contracts/console-api.ts';
import type { UsageGroupsQuery } from '../ports.ts';
import type { LookupChange } from './engine.ts';

export type StoreCall =
  /** batches of events, each the UTF-8 bytes of one JSON array, appended in one transaction */
  | { method: 'append'; batches: Uint8Array[] }
  | { method: 'sync' }
  | { method: 'overview'; query: UsageOverviewQuery & { userId: string | null } }
  | { method: 'logs'; query: UsageLogsQuery & { userId: string | null } }
  | { method: 'channelUsage'; sinceMs: number }
  | { method: 'groups'; query: UsageGroupsQuery }
  | { method: 'sessions'; query: SessionsQuery & { userId: string | null } }
  | { method: 'session'; sessionId: string; userId: string | null }
  | { method: 'lag' }
  | { method: 'storedResponse'; responseId: string }
  | { method: 'storedResponseBytes'; userId: string }
  | { method: 'payload'; requestId: string }
  | { method: 'close' };

export type StoreRequest = StoreCall & { id: number };

export interface SerializedError {
  message: string;
  /** SQLITE_FULL and the like: callers tell a full disk from a bug by it */
  code?: string;
}

export type WorkerMessage =
  /** threadId: the worker's own (Linux), so the serving thread can change its priority (thread-priority.ts) */
  | { type: 'ready'; threadId: number | null }
  | { type: 'failed'; error: SerializedError }
  | { type: 'changes'; changes: LookupChange[] }
  | { type: 'reply'; id: number; value?: unknown; error?: SerializedError };

export function serializeError(error: unknown): SerializedError {
  const code = (error as { code?: unknown } | null)?.code;
  return {
    message: error instanceof Error ? error.message : String(error),
    ...(typeof code === 'string' && { code }),
  };
}

export function deserializeError({ message, code }: SerializedError): Error {
  return Object.assign(new Error(message), code === undefined ? {} : { code });
}
