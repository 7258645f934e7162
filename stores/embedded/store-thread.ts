/**
 * @module stores/embedded/store-thread
 * The serving thread's handle on the store worker: starts it, turns calls into messages and replies
 * into promises, and feeds the lookup changes it reports into the serving thread's in-memory lookups.
 * If the worker dies (it should not: SQLite errors are replies, not crashes), every call in flight
 * fails, which the event publisher retries, and a new worker is started on the same file.
 */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { log } from '../../platform/log.ts';
import { PROJECT_ROOT } from '../../platform/project-root.ts';
import { letWorkersSizeTheirYoungGeneration } from '../../platform/worker-heap.ts';
import type { MemoryLookups } from '../memory-lookups.ts';
import type { LookupChange } from './engine.ts';
import { setThreadPriority } from './thread-priority.ts';
import { deserializeError, type StoreCall, type WorkerMessage } from './worker-protocol.ts';

/**
 * From source (tsx, tests) the worker is the .ts module, started through a loader; from the bundle, its
 * built twin in the same bundle: this module is bundled into a file one level below the bundle's root
 * (`gateway/main.js` or `chunks/…`). Taken from the checkout's `dist/` instead, a copy of a bundle
 * started beside another (a build compared with the one before it) ran the other's worker.
 */
const fromSource = import.meta.url.endsWith('.ts');
const WORKER_ENTRY = fromSource
  ? path.join(PROJECT_ROOT, 'stores/embedded/store-worker.ts')
  : path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'stores/embedded/store-worker.js');
const WORKER_FILE = fromSource ? path.join(PROJECT_ROOT, 'scripts/typescript-worker.mjs') : WORKER_ENTRY;

function applyChanges(lookups: MemoryLookups, changes: readonly LookupChange[]): void {
  for (const change of changes) {
    if (change.kind === 'document') lookups.put(change.collection, change.id, change.body);
    else if (change.kind === 'usage') lookups.putUsage(change.tokenId, change.usage);
    else lookups.putSpend(change.owner, change.counters);
  }
}

export class StoreThread {
  readonly #dataDirectory: string;
  readonly #nice: number;
  readonly #responseRetentionMs: number | undefined;
  readonly #lookups: MemoryLookups;
  readonly #pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  #worker: Worker | null = null;
  /** the worker's thread id (Linux), for its priority */
  #threadId: number | null = null;
  #urgent = false;
  #nextId = 1;
  #closing = false;
  #alive = false;

  /** @param nice the worker thread's nice value (0: the relay's own priority) */
  constructor(dataDirectory: string, lookups: MemoryLookups, nice = 0, responseRetentionMs?: number) {
    this.#dataDirectory = dataDirectory;
    this.#nice = nice;
    this.#responseRetentionMs = responseRetentionMs;
    this.#lookups = lookups;
  }

  /** the worker's thread id on Linux, once started */
  get threadId(): number | null {
    return this.#threadId;
  }

  get alive(): boolean {
    return this.#alive;
  }

  /** Starts the worker; resolves once it has opened the file and sent every lookup document. */
  start(): Promise<void> {
    // Else npm start's --max-semi-space-size for the relay overrides the limit below.
    letWorkersSizeTheirYoungGeneration();
    const worker = new Worker(WORKER_FILE, {
      workerData: {
        dataDirectory: this.#dataDirectory,
        nice: this.#nice,
        responseRetentionMs: this.#responseRetentionMs,
        entry: pathToFileURL(WORKER_ENTRY).href,
      },
      // A small young generation: the worker's garbage is short-lived rows and lines, and V8's default
      // (up to 48 MB here) only grew the gateway's resident memory without making the worker faster.
      resourceLimits: { maxYoungGenerationSizeMb: 4 },
    });
    this.#worker = worker;
    return new Promise<void>((resolve, reject) => {
      worker.on('message', (message: WorkerMessage) => {
        switch (message.type) {
          case 'changes':
            applyChanges(this.#lookups, message.changes);
            return;
          case 'ready':
            this.#threadId = message.threadId;
            // A worker started again while requests wait for the log starts with the priority they need.
            if (this.#urgent) this.prioritize(true);
            this.#alive = true;
            resolve();
            return;
          case 'failed':
            reject(deserializeError(message.error));
            return;
          case 'reply':
            this.#settle(message.id, message.value, message.error && deserializeError(message.error));
        }
      });
      worker.on('error', (error) => {
        log.error('store worker failed', { error: String(error) });
        reject(error);
      });
      worker.on('exit', (code) => {
        this.#alive = false;
        const stopped = new Error(`the store worker stopped (exit code ${code})`);
        for (const id of [...this.#pending.keys()]) this.#settle(id, undefined, stopped);
        if (this.#closing || this.#worker !== worker) return;
        reject(stopped);
        this.#restart();
      });
    });
  }

  #restart(): void {
    setTimeout(() => {
      if (this.#closing) return;
      this.start().catch(() => this.#restart());
    }, 1_000).unref();
  }

  #settle(id: number, value: unknown, error: Error | undefined): void {
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    if (error) pending.reject(error);
    else pending.resolve(value);
  }

  /**
   * Gives the worker the relay's own priority while requests wait for its appends (urgent), and its
   * background priority back once they no longer do (thread-priority.ts). Lowering a nice value needs
   * CAP_SYS_NICE: without it the worker keeps its background priority, and the relay's waiting alone
   * paces the load to what the worker gets of the CPU.
   */
  prioritize(urgent: boolean): void {
    this.#urgent = urgent;
    if (this.#threadId === null || this.#nice <= 0) return;
    setThreadPriority(this.#threadId, urgent ? 0 : this.#nice);
  }

  /** `transfer`: buffers of the call that move to the worker instead of being copied. */
  call<Value>(call: StoreCall, transfer: ArrayBuffer[] = []): Promise<Value> {
    const worker = this.#worker;
    if (!worker || !this.#alive) return Promise.reject(new Error('the store worker is not running; retry shortly'));
    const id = this.#nextId++;
    return new Promise<Value>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      try {
        worker.postMessage({ id, ...call }, transfer);
      } catch (error) {
        // A call that cannot be posted (a value that cannot be cloned) gets no reply to wait for.
        this.#pending.delete(id);
        reject(error);
      }
    });
  }

  /** Projects what is left, closes the file, and ends the worker. */
  async close(): Promise<void> {
    if (!this.#worker) return;
    try {
      if (this.#alive) await this.call({ method: 'close' });
    } finally {
      this.#closing = true;
      await this.#worker.terminate();
      this.#worker = null;
    }
  }
}
