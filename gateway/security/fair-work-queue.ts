/**
 * @module gateway/security/fair-work-queue
 * Runs expensive work (password hashing) a few at a time, taking waiting clients in turn, so that one
 * client's flood neither fills the thread pool (scrypt runs there, beside DNS and file reads) nor
 * delays another client by more than about one turn. Bounded everywhere: past `perClientWaiting`
 * queued for one client, `totalWaiting` queued overall, or `maxWaitMs` spent waiting, the work is
 * refused with `WorkQueueFullError`, which the caller answers 429 (that client) or 503 (everyone).
 */

export interface FairWorkQueueOptions {
  /** work items running at once */
  concurrency: number;
  /** work items one client may have waiting */
  perClientWaiting: number;
  /** work items waiting across every client */
  totalWaiting: number;
  /** longest wait before an item is refused */
  maxWaitMs: number;
}

export class WorkQueueFullError extends Error {
  /** `client`: this client has too much waiting; `server`: the queue as a whole is full or too slow. */
  readonly scope: 'client' | 'server';

  constructor(scope: 'client' | 'server', message: string) {
    super(message);
    this.name = 'WorkQueueFullError';
    this.scope = scope;
  }
}

interface Waiter {
  start(): void;
  timer: NodeJS.Timeout;
}

export class FairWorkQueue {
  readonly #options: FairWorkQueueOptions;
  /** Waiting items per client; the map's order is the turn order. */
  readonly #waiting = new Map<string, Waiter[]>();
  #waitingCount = 0;
  #running = 0;

  constructor(options: FairWorkQueueOptions) {
    this.#options = options;
  }

  get running(): number {
    return this.#running;
  }

  get waiting(): number {
    return this.#waitingCount;
  }

  async run<Result>(client: string, work: () => Promise<Result>): Promise<Result> {
    if (this.#running >= this.#options.concurrency) await this.#wait(client);
    else this.#running += 1;
    try {
      return await work();
    } finally {
      this.#next();
    }
  }

  /** Resolves once a running slot was handed to this client's item (the slot is counted already). */
  #wait(client: string): Promise<void> {
    const queue = this.#waiting.get(client) ?? [];
    if (queue.length >= this.#options.perClientWaiting)
      return Promise.reject(new WorkQueueFullError('client', 'Too many password checks from this client at once.'));
    if (this.#waitingCount >= this.#options.totalWaiting)
      return Promise.reject(new WorkQueueFullError('server', 'Too many password checks waiting.'));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        start: () => {
          clearTimeout(waiter.timer);
          resolve();
        },
        timer: setTimeout(() => {
          this.#remove(client, waiter);
          reject(new WorkQueueFullError('server', 'Password checks are waiting too long.'));
        }, this.#options.maxWaitMs),
      };
      queue.push(waiter);
      this.#waiting.set(client, queue);
      this.#waitingCount += 1;
    });
  }

  #remove(client: string, waiter: Waiter): void {
    const queue = this.#waiting.get(client);
    const index = queue?.indexOf(waiter) ?? -1;
    if (!queue || index < 0) return;
    queue.splice(index, 1);
    this.#waitingCount -= 1;
    if (queue.length === 0) this.#waiting.delete(client);
  }

  /** A slot freed: the client whose turn it is gets it, and goes to the back of the line. */
  #next(): void {
    const turn = this.#waiting.entries().next();
    if (turn.done) {
      this.#running -= 1;
      return;
    }
    const [client, queue] = turn.value;
    const waiter = queue.shift()!;
    this.#waitingCount -= 1;
    this.#waiting.delete(client);
    if (queue.length > 0) this.#waiting.set(client, queue);
    waiter.start();
  }
}
