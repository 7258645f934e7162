/**
 * @module stores/cluster/kafka-thread
 * The serving thread's handle on the Kafka worker (kafka-worker.ts): starts it, turns calls into
 * messages and replies into promises, and is the node's `EventLog`. Events cross as the bytes the
 * publisher printed (a structured clone of the objects costs more than printing them), so the relay
 * thread's part of recording is the same in both modes. If the worker dies, every call in flight fails
 * (the publisher retries its batches; a command reports the error) and a new worker starts on the same
 * outbox file.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { GatewayEvent } from '../../contracts/events/index.ts';
import { PROJECT_ROOT } from '../../gateway/project-root.ts';
import { deserializeError } from '../embedded/worker-protocol.ts';
import type { EventLog } from '../ports.ts';
import type { KafkaCall, KafkaWorkerData, KafkaWorkerMessage } from './kafka-worker-protocol.ts';

/** From source (tsx, tests) the worker is the .ts module, started through a loader; from the bundle, its built twin. */
const fromSource = import.meta.url.endsWith('.ts');
const WORKER_ENTRY = fromSource
  ? path.join(PROJECT_ROOT, 'stores/cluster/kafka-worker.ts')
  : path.join(PROJECT_ROOT, 'dist/stores/cluster/kafka-worker.js');
const WORKER_FILE = fromSource ? path.join(PROJECT_ROOT, 'scripts/typescript-worker.mjs') : WORKER_ENTRY;

type Log = (message: string, extra?: Record<string, unknown>) => void;

const print = (events: readonly GatewayEvent[]) => Buffer.from(JSON.stringify(events));

export class KafkaThread implements EventLog {
  readonly #workerData: Omit<KafkaWorkerData, 'entry'>;
  readonly #log: Log;
  readonly #pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  #worker: Worker | null = null;
  #nextId = 1;
  #alive = false;
  #closing = false;

  constructor(workerData: Omit<KafkaWorkerData, 'entry'>, log: Log) {
    this.#workerData = workerData;
    this.#log = log;
  }

  get alive(): boolean {
    return this.#alive;
  }

  /** Starts the worker; resolves once its producer connected or its outbox took over. */
  start(): Promise<void> {
    const worker = new Worker(WORKER_FILE, {
      workerData: { ...this.#workerData, entry: pathToFileURL(WORKER_ENTRY).href } satisfies KafkaWorkerData,
    });
    this.#worker = worker;
    return new Promise<void>((resolve, reject) => {
      worker.on('message', (message: KafkaWorkerMessage) => {
        switch (message.type) {
          case 'ready':
            this.#alive = true;
            resolve();
            return;
          case 'failed':
            reject(deserializeError(message.error));
            return;
          case 'log':
            this.#log(message.message, message.extra);
            return;
          case 'reply':
            this.#settle(message.id, message.value, message.error && deserializeError(message.error));
        }
      });
      worker.on('error', (error) => {
        this.#log('Kafka worker failed', { error: String(error) });
        reject(error);
      });
      worker.on('exit', (code) => {
        this.#alive = false;
        const stopped = new Error(`the Kafka worker stopped (exit code ${code})`);
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

  #call<Value>(call: KafkaCall, transfer: ArrayBuffer[] = []): Promise<Value> {
    const worker = this.#worker;
    if (!worker || !this.#alive) return Promise.reject(new Error('the Kafka worker is not running; retry shortly'));
    const id = this.#nextId++;
    return new Promise<Value>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      worker.postMessage({ id, ...call }, transfer);
    });
  }

  append(events: readonly GatewayEvent[]): Promise<void> {
    return events.length === 0 ? Promise.resolve() : this.appendSerialized([print(events)]);
  }

  serialize(events: readonly GatewayEvent[]): Uint8Array {
    return print(events);
  }

  /**
   * The caller keeps its bytes for a retry; copies of them move to the worker (a transfer: no message
   * buffer holds them all), as the embedded store's appends do.
   */
  appendSerialized(batches: readonly Uint8Array[]): Promise<void> {
    const copies = batches.map((bytes) => new Uint8Array(bytes));
    return this.#call<void>(
      { method: 'append', batches: copies },
      copies.map((copy) => copy.buffer as ArrayBuffer),
    );
  }

  /** Events waiting in the outbox; null while the worker is not running. */
  async outboxDepth(): Promise<number | null> {
    return this.#alive ? this.#call<number>({ method: 'outboxDepth' }) : null;
  }

  /** Drains the outbox for up to `deadlineMs` (what is left stays on disk), then ends the worker. */
  async close(deadlineMs = 10_000): Promise<void> {
    if (!this.#worker) return;
    try {
      if (this.#alive) await this.#call({ method: 'close', deadlineMs });
    } finally {
      this.#closing = true;
      this.#alive = false;
      await this.#worker.terminate();
      this.#worker = null;
    }
  }
}
