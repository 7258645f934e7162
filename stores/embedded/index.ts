/**
 * @module stores/embedded
 * The embedded default: one SQLite file under DATA_DIR holds the event log and every projection. The
 * file and the projector live on a worker thread (store-worker.ts); this thread keeps the key, account
 * and channel lookups in memory, fed by the changes the worker reports, so the relay never waits on
 * SQLite and a console query never stalls the relay.
 */
import type { GatewayEvent } from '../../contracts/events/index.ts';
import { MemoryCommandGuards } from '../memory-command-guards.ts';
import { MemoryLookups } from '../memory-lookups.ts';
import { MemoryQuotaLedger } from '../memory-quota-ledger.ts';
import { MemoryRateLimiter } from '../memory-rate-limiter.ts';
import type { Stores } from '../ports.ts';
import { StoreThread } from './store-thread.ts';

export interface EmbeddedStores extends Stores {
  /** Applies every logged event not yet projected; resolves to how many were applied. */
  catchUp(): Promise<number>;
}

export interface EmbeddedStoreOptions {
  /** the store worker thread's nice value on Linux (STORE_WORKER_NICE; 0 leaves it alone) */
  workerNice?: number;
  /** how long a stored response is kept (STORED_RESPONSES_RETENTION_DAYS; default 30 days) */
  responseRetentionMs?: number;
}

export async function createEmbeddedStores(
  dataDirectory: string,
  { workerNice = 0, responseRetentionMs }: EmbeddedStoreOptions = {},
): Promise<EmbeddedStores> {
  const lookups = new MemoryLookups();
  const thread = new StoreThread(dataDirectory, lookups, workerNice, responseRetentionMs);
  await thread.start();
  const catchUp = () => thread.call<number>({ method: 'sync' });
  // Each batch crosses as the UTF-8 bytes of its JSON array, far cheaper than a structured clone of
  // the objects. The caller keeps its bytes for a retry; copies of them move to the worker, so the
  // message is not a clone writing every batch into one buffer (mapped fresh when over 128 KB).
  const appendBatches = (batches: readonly Uint8Array[]) => {
    // `new Uint8Array` copies (a Buffer's `slice` would share the memory, and be detached with it).
    const copies = batches.map((bytes) => new Uint8Array(bytes));
    return thread.call<void>(
      { method: 'append', batches: copies },
      copies.map((copy) => copy.buffer as ArrayBuffer),
    );
  };
  const print = (events: readonly GatewayEvent[]) => Buffer.from(JSON.stringify(events));
  return {
    mode: 'embedded',
    events: {
      append: (events: readonly GatewayEvent[]) => appendBatches([print(events)]),
      serialize: print,
      appendSerialized: appendBatches,
      prioritize: (urgent: boolean) => thread.prioritize(urgent),
    },
    lookups,
    guards: new MemoryCommandGuards(),
    rateLimiter: new MemoryRateLimiter(),
    quotas: new MemoryQuotaLedger(),
    usage: {
      overview: (query) => thread.call({ method: 'overview', query }),
      logs: (query) => thread.call({ method: 'logs', query }),
      channelUsage: (sinceMs) => thread.call({ method: 'channelUsage', sinceMs }),
      groups: (query) => thread.call({ method: 'groups', query }),
      sessions: (query) => thread.call({ method: 'sessions', query }),
      session: (sessionId, userId) => thread.call({ method: 'session', sessionId, userId }),
    },
    responses: {
      find: (responseId) => thread.call({ method: 'storedResponse', responseId }),
      storedBytes: (userId) => thread.call({ method: 'storedResponseBytes', userId }),
    },
    payloads: { find: (requestId) => thread.call({ method: 'payload', requestId }) },
    backlog: async () => ({
      outboxDepth: null,
      projectorLagEvents: thread.alive ? await thread.call<number | null>({ method: 'lag' }) : null,
    }),
    sync: { caughtUp: async () => void (await catchUp()) },
    catchUp,
    ready: async () => thread.alive,
    close: () => thread.close(),
  };
}
