/**
 * @module gateway/relay/backlog-admission
 * Paces the relay by the event log. Every relayed request leaves its events to be appended; when the
 * log falls behind (a store worker starved of CPU by other processes, a slow disk), answering fast
 * only fills the queue, and refusing fast is worse: clients in a loop come back at once, the relay
 * spends the cores on cheap refusals, the log never catches up, and goodput falls to zero (measured:
 * docs/performance.md, "Goodput under contention").
 *
 * So above a soft mark of queued events a new request waits, before its body is read, and requests go
 * ahead in arrival order as the queue drains below the mark: clients that wait for their answers are
 * slowed to the rate the log takes events, and none is refused. Only when the queue plus the waiting
 * requests' events reach the hard mark (EVENT_QUEUE_LIMIT), or a request has waited `maxWaitMs`, is a
 * request refused with 503 `event_log_behind` and `retry-after`: arrivals that do not wait for their
 * answers (open-loop overload) are shed while the log keeps its own pace.
 */
import { eventsBehindError, refuseWhenEventsBehind } from './admission.ts';

/** A relayed request publishes one event (request.completed, with its usage). */
const EVENTS_PER_REQUEST = 1;
/** How often waiting requests are looked at while any wait. */
const RELEASE_EVERY_MS = 2;
/** How often, and for how long, a queue back to low is watched before the writer's urgency ends. */
const CALM_CHECK_MS = 250;
const CALM_AFTER_MS = 1_000;
/**
 * Urgency that comes back within this many calm periods of ending doubles the next calm period, up to
 * MAX_CALM_AFTER_MS. Beside a process that keeps the cores busy, a writer sent back to its background
 * priority after a second was starved again a few seconds later, and goodput rose and fell with it
 * (windows at 0.66 of the best); a writer kept urgent while the contention lasts stays level.
 */
const RECURRENCE_PERIODS = 10;
const MAX_CALM_AFTER_MS = 64_000;

export interface BacklogAdmissionOptions {
  /** events queued and not yet appended */
  depth: () => number;
  /** the hard mark (EVENT_QUEUE_LIMIT) */
  limit: number;
  /** where requests start to wait (default: a fifth of the hard mark) */
  softLimit?: number;
  /** the longest a request waits before it is refused (default 10 s: a log that has stopped, a full disk) */
  maxWaitMs?: number;
  /**
   * Told when the queue reaches half the soft mark (true: the log's writer should stop yielding the
   * CPU, before requests have to wait) and when it has stayed low for the calm period again (false).
   */
  onUrgency?: (urgent: boolean) => void;
  /** how long the queue must stay low before urgency ends, at first (default 1 s; see RECURRENCE_PERIODS) */
  calmAfterMs?: number;
}

interface Waiting {
  since: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class BacklogAdmission {
  readonly #depth: () => number;
  readonly #limit: number;
  readonly #softLimit: number;
  /** where the log's writer is told it is urgent: half the soft mark, before anyone has to wait */
  readonly #urgentMark: number;
  readonly #maxWaitMs: number;
  readonly #onUrgency: (urgent: boolean) => void;
  #waiting: Waiting[] = [];
  #timer: NodeJS.Timeout | null = null;
  #timerDelayMs = 0;
  #urgent = false;
  /** when the queue was last at or above the urgent mark's half, or anyone waited */
  #lastBehindAt = 0;
  readonly #baseCalmAfterMs: number;
  #calmAfterMs: number;
  #calmedAt = Number.NEGATIVE_INFINITY;

  constructor({
    depth,
    limit,
    softLimit,
    maxWaitMs = 10_000,
    onUrgency = () => {},
    calmAfterMs = CALM_AFTER_MS,
  }: BacklogAdmissionOptions) {
    this.#baseCalmAfterMs = calmAfterMs;
    this.#calmAfterMs = calmAfterMs;
    this.#depth = depth;
    this.#limit = limit;
    this.#softLimit = Math.max(1, Math.min(softLimit ?? Math.floor(limit / 5), limit));
    this.#urgentMark = Math.max(1, Math.floor(this.#softLimit / 2));
    this.#maxWaitMs = maxWaitMs;
    this.#onUrgency = onUrgency;
  }

  /** Requests waiting for the log. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /**
   * null when the request may go ahead now (the common path: one comparison, nothing allocated, no
   * await); else a promise that resolves when it may, or rejects with the 503. Throws the 503 at the
   * hard mark.
   */
  admit(): Promise<void> | null {
    const depth = this.#depth();
    if (depth < this.#urgentMark && this.#waiting.length === 0) return null;
    this.#behind();
    // Below the mark and nobody waiting ahead: go. Someone waiting goes first (arrival order).
    if (depth < this.#softLimit && this.#waiting.length === 0) return null;
    refuseWhenEventsBehind(depth + EVENTS_PER_REQUEST * this.#waiting.length, this.#limit);
    return new Promise<void>((resolve, reject) => {
      this.#waiting.push({ since: performance.now(), resolve, reject });
      this.#schedule(RELEASE_EVERY_MS);
    });
  }

  /** The log is behind: its writer is told so, and told again it is not once the queue stays low. */
  #behind(): void {
    const now = performance.now();
    this.#lastBehindAt = now;
    if (this.#urgent) return;
    this.#urgent = true;
    this.#calmAfterMs =
      now - this.#calmedAt < RECURRENCE_PERIODS * this.#calmAfterMs
        ? Math.min(2 * this.#calmAfterMs, MAX_CALM_AFTER_MS)
        : this.#baseCalmAfterMs;
    this.#onUrgency(true);
    this.#schedule(CALM_CHECK_MS);
  }

  #schedule(delayMs: number): void {
    // A timer already set at the same or a sooner time stays (re-setting it on every arrival would
    // put the release off for as long as requests keep coming).
    if (this.#timer && (delayMs === CALM_CHECK_MS || this.#timerDelayMs === RELEASE_EVERY_MS)) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timerDelayMs = delayMs;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#release();
    }, delayMs);
    // Requests waiting keep the process alive through their sockets; the calm check need not.
    if (delayMs === CALM_CHECK_MS) this.#timer.unref();
  }

  /**
   * Lets as many go as the room below the soft mark takes (each will publish one event), oldest
   * first; refuses those that waited too long.
   */
  #release(): void {
    const now = performance.now();
    const depth = this.#depth();
    let room = Math.ceil((this.#softLimit - depth) / EVENTS_PER_REQUEST);
    let index = 0;
    for (; index < this.#waiting.length; index++) {
      const waiting = this.#waiting[index]!;
      if (room > 0) {
        room--;
        waiting.resolve();
      } else if (now - waiting.since >= this.#maxWaitMs) {
        waiting.reject(eventsBehindError(null));
      } else break;
    }
    this.#waiting.splice(0, index);
    if (this.#waiting.length > 0 || depth >= this.#urgentMark / 2) this.#lastBehindAt = now;
    if (this.#waiting.length > 0) {
      this.#schedule(RELEASE_EVERY_MS);
      return;
    }
    // Calm once the queue has stayed under half the urgent mark for the calm period: a writer given
    // priority keeps it through the bursts of a backlog that is still draining.
    if (now - this.#lastBehindAt >= this.#calmAfterMs) {
      this.#urgent = false;
      this.#calmedAt = now;
      this.#onUrgency(false);
    } else this.#schedule(CALM_CHECK_MS);
  }
}
