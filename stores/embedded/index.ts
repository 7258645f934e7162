/**
 * @module stores/embedded
 * The embedded default: one SQLite file under DATA_DIR holds the event log and every projection. The
 * file and the projector live on a worker thread (store-worker.ts); this thread keeps the key, account
 * and channel lookups in memory, fed by the changes the worker reports, so the relay never waits on
 * SQLite and a console query never stalls the relay.
 */
import type { GatewayEvent } from '../../contracts/events/index.ts';
import { MemoryLookups } from '../memory-lookups.ts';
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
}

export async function createEmbeddedStores(
  dataDirectory: string,
  { workerNice = 0 }: EmbeddedStoreOptions = {},
): Promise<EmbeddedStores> {
  const lookups = new MemoryLookups();
  const thread = new StoreThread(dataDirectory, lookups, workerNice);
  await thread.start();
  const catchUp = () => thread.call<number>({ method: 'sync' });
  // The worker takes a batch as its JSON array: one string crosses threads far cheaper than objects.
  const appendArray = (events: string) => thread.call<void>({ method: 'append', events });
  return {
    mode: 'embedded',
    events: {
      append: (events: readonly GatewayEvent[]) => appendArray(JSON.stringify(events)),
      serialize: (events: readonly GatewayEvent[]) => JSON.stringify(events),
      appendSerialized: (serialized: readonly string[]) => appendArray(joinArrays(serialized)),
    },
    lookups,
    rateLimiter: new MemoryRateLimiter(),
    usage: {
      overview: (query) => thread.call({ method: 'overview', query }),
      logs: (query) => thread.call({ method: 'logs', query }),
    },
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

/** JSON arrays as one array: `[a,b]` and `[c]` as `[a,b,c]` (the inner texts are not parsed again). */
export function joinArrays(arrays: readonly string[]): string {
  if (arrays.length === 1) return arrays[0]!;
  const items = arrays.filter((text) => text !== '[]').map((text) => text.slice(1, -1));
  return `[${items.join(',')}]`;
}
