/**
 * @module stores/embedded/store-worker
 * The store worker thread: owns the SQLite file (event log, projections, usage queries) so that no
 * SQLite statement, projection batch, WAL checkpoint or console query ever runs on the thread that
 * relays requests. New events are projected right after their append is acknowledged, coalesced
 * so that a burst of appends becomes one projection batch.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { log } from '../../platform/log.ts';
import { EmbeddedEngine } from './engine.ts';
import { currentThreadId, lowerThreadPriority } from './thread-priority.ts';
import { type StoreRequest, serializeError, type WorkerMessage } from './worker-protocol.ts';

const port = parentPort!;
const post = (message: WorkerMessage) => port.postMessage(message);

const { dataDirectory, nice, responseRetentionMs } = workerData as {
  dataDirectory: string;
  nice: number;
  responseRetentionMs?: number;
};
// Background work: the relay thread goes first (thread-priority.ts).
lowerThreadPriority(nice);

/**
 * Tests only (test/faults/backpressure.int.spec.ts): each event appended blocks the worker this long,
 * as a starved or slow store would, so the relay's pacing can be seen without a loaded machine.
 */
const TEST_EVENT_DELAY_MS = Number(process.env.GATEWAY_TEST_STORE_EVENT_DELAY_MS) || 0;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

let engine: EmbeddedEngine;
try {
  engine = new EmbeddedEngine(dataDirectory, { responseRetentionMs });
  post({ type: 'changes', changes: engine.open() });
  post({ type: 'ready', threadId: currentThreadId() });
} catch (error) {
  post({ type: 'failed', error: serializeError(error) });
  process.exit(1);
}

/** A batch's bytes as text, for the log's TEXT column and for parsing. */
function utf8Text(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

/** Projects and publishes the lookup changes; throws what SQLite throws. */
function project(): number {
  const applied = engine.catchUp();
  const changes = engine.takeChanges();
  if (changes.length > 0) post({ type: 'changes', changes });
  return applied;
}

/**
 * Traffic is projected at most this often. Each projection batch is a transaction whose cost is
 * mostly per batch (the rollup rows and pages it touches, the WAL frames it writes), so gathering
 * the events of 100 ms instead of a few milliseconds costs the relay's CPU a fraction as much, well
 * inside the overview's 2 s promise. Commands do not wait for it: they project at once (`sync`).
 */
const PROJECTION_DELAY_MS = 100;

let scheduled = false;
function scheduleProjection(delayMs = 0): void {
  if (scheduled) return;
  scheduled = true;
  const run = () => {
    scheduled = false;
    if (!engine.database.open) return;
    try {
      project();
    } catch (error) {
      // The events are safe in the log (a full disk: SQLITE_FULL); try again shortly.
      log.error('projection failed; will retry', { error: String(error) });
      scheduleProjection(1_000);
    }
  };
  if (delayMs === 0) setImmediate(run);
  else setTimeout(run, delayMs);
}

/** The append, then TEST_EVENT_DELAY_MS per event it added (the projector's lag grows by them). */
function appendSlowly(batches: string[]): void {
  const before = engine.lag();
  engine.appendPrinted(batches);
  Atomics.wait(sleeper, 0, 0, TEST_EVENT_DELAY_MS * (engine.lag() - before));
}

async function handle(request: StoreRequest): Promise<unknown> {
  switch (request.method) {
    case 'append':
      if (TEST_EVENT_DELAY_MS > 0) appendSlowly(request.batches.map(utf8Text));
      else engine.appendPrinted(request.batches.map(utf8Text));
      scheduleProjection(PROJECTION_DELAY_MS);
      return undefined;
    case 'sync':
      return project();
    case 'overview':
      return engine.usage.overview(request.query);
    case 'logs':
      return engine.usage.logs(request.query);
    case 'channelUsage':
      return engine.usage.channelUsage(request.sinceMs);
    case 'groups':
      return engine.usage.groups(request.query);
    case 'sessions':
      return engine.usage.sessions(request.query);
    case 'session':
      return engine.usage.session(request.sessionId, request.userId);
    case 'storedResponse':
      return engine.storedResponse(request.responseId);
    case 'storedResponseBytes':
      return engine.storedResponseBytes(request.userId);
    case 'payload':
      return engine.payload(request.requestId);
    case 'lag':
      return engine.database.open ? engine.lag() : null;
    case 'close':
      project();
      engine.close();
      return undefined;
  }
}

/**
 * Stored responses lapse while nothing is stored as well: their rows and conversations go within this
 * long of their lapse time (a new response also sweeps them).
 */
const PURGE_INTERVAL_MS = 10 * 60_000;
setInterval(() => {
  if (!engine.database.open) return;
  try {
    engine.purgeStoredResponses();
  } catch (error) {
    log.error('stored responses purge failed; will retry', { error: String(error) });
  }
}, PURGE_INTERVAL_MS).unref();

port.on('message', (request: StoreRequest) => {
  handle(request).then(
    (value) => post({ type: 'reply', id: request.id, value }),
    (error: unknown) => post({ type: 'reply', id: request.id, error: serializeError(error) }),
  );
});
