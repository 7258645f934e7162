/**
 * @module stores/embedded/event-log
 * The durable local event log: an append-only SQLite table of event batches (event-log-schema.ts).
 * Appends are idempotent by event id for the newest RECENT_IDS events, so a publisher that retries
 * after an unclear failure never stores an event twice (see `#recent`).
 */
import type { GatewayEvent } from '../../contracts/events/index.ts';
import { upcastTrusted } from '../../contracts/events/upcast.ts';
import type { SqliteDatabase } from './database.ts';

export interface PositionedEvent {
  position: number;
  event: GatewayEvent;
}

/** Events and their JSON array, as they are stored. */
interface PrintedBatch {
  events: readonly GatewayEvent[];
  printed: string;
}

/** At most this many appended events are kept in memory for the projector (see `#tail`). */
const TAIL_LIMIT = 4_000;

/**
 * How many of the newest logged events' ids an append is checked against. A retry can only repeat
 * what was in flight when an append's outcome was lost, that is when the store worker died between
 * its commit and its reply: the publisher's one append (at most 500 events) and the commands of that
 * moment, which the worker started next on the same file finds among the newest events it reads back.
 */
const RECENT_IDS = 8_192;

export class SqliteEventLog {
  /**
   * The events this process appended, in log order, not yet read by the projector: it takes them
   * from here instead of reading back and parsing again what it was just given. Only a run of
   * consecutive positions is kept; anything else (a gap, a projector far behind) empties it, and
   * the projector reads the batches back from `event_batches`.
   */
  #tail: PositionedEvent[] = [];
  /**
   * The ids of the newest RECENT_IDS logged events, oldest first. It replaced a table holding every
   * event id ever logged: that index cost the store worker about 2 µs per event (its row, its pages
   * in the write-ahead log) to catch a retry, which can only repeat the newest events (RECENT_IDS).
   */
  readonly #recent = new Set<string>();
  readonly #appendBatches;
  readonly #readFrom;
  readonly #lastPosition;
  readonly #count;

  /**
   * `onAppend`, if given, sees each append's events inside its transaction, before the batches are
   * stored, and says what text to store for each (`printed` as it is, or less of it): the captured
   * payloads are kept from there, and stored without their bodies (payload-writer.ts).
   */
  constructor(
    database: SqliteDatabase,
    onAppend: (events: readonly GatewayEvent[], printed: string) => string = (_events, printed) => printed,
  ) {
    const insertBatch = database.prepare(
      'INSERT INTO event_batches (first_position, event_count, payload) VALUES (?, ?, ?)',
    );
    this.#lastPosition = database
      .prepare('SELECT first_position + event_count - 1 FROM event_batches ORDER BY first_position DESC LIMIT 1')
      .pluck();
    this.#count = database.prepare('SELECT coalesce(sum(event_count), 0) FROM event_batches').pluck();
    this.#rememberNewest(database);
    // Each part is stored as its own batch row: `printed` is the JSON array of its `events`, kept as
    // it is unless a retried event is left out.
    this.#appendBatches = database.transaction((parts: ReadonlyArray<PrintedBatch>) => {
      // An event already in the log (a retried append), or twice in this append, is left out, and so
      // out of the tail.
      const appended: PositionedEvent[] = [];
      const ids = new Set<string>();
      let next = this.lastPosition() + 1;
      for (const { events, printed } of parts) {
        const kept: GatewayEvent[] = [];
        for (const event of events) {
          if (this.#recent.has(event.eventId) || ids.has(event.eventId)) continue;
          ids.add(event.eventId);
          kept.push(event);
        }
        if (kept.length === 0) continue;
        insertBatch.run(
          next,
          kept.length,
          onAppend(kept, kept.length === events.length ? printed : JSON.stringify(kept)),
        );
        for (const event of kept) appended.push({ position: next++, event });
      }
      return appended;
    });
    // From the batch holding the position after `?` (or the first batch after it) on.
    this.#readFrom = database.prepare(
      `SELECT first_position, payload FROM event_batches
       WHERE first_position >= coalesce((SELECT max(first_position) FROM event_batches WHERE first_position <= ? + 1), 0)
       ORDER BY first_position`,
    );
  }

  /** Fills `#recent` from the newest batches, read back from the newest down. */
  #rememberNewest(database: SqliteDatabase): void {
    const newestFirst = database.prepare('SELECT payload FROM event_batches ORDER BY first_position DESC').pluck();
    const batches: string[][] = [];
    let count = 0;
    for (const payload of newestFirst.iterate() as Iterable<string>) {
      const ids = (JSON.parse(payload) as Array<{ eventId: string }>).map((event) => event.eventId);
      batches.push(ids);
      count += ids.length;
      if (count >= RECENT_IDS) break;
    }
    for (const ids of batches.reverse()) this.#remember(ids);
  }

  /** Adds committed ids to `#recent`, forgetting the oldest beyond RECENT_IDS. */
  #remember(ids: Iterable<string>): void {
    const recent = this.#recent;
    for (const id of ids) recent.add(id);
    for (const oldest of recent) {
      if (recent.size <= RECENT_IDS) break;
      recent.delete(oldest);
    }
  }

  /** The position of the newest event. */
  lastPosition(): number {
    return (this.#lastPosition.get() as number | undefined) ?? 0;
  }

  /** How many events the log holds. */
  count(): number {
    return this.#count.get() as number;
  }

  /** Appends in one transaction (synchronous: it runs on the store worker thread). */
  append(events: readonly GatewayEvent[]): void {
    if (events.length > 0) this.#keep(this.#appendBatches([{ events, printed: JSON.stringify(events) }]));
  }

  /**
   * After a commit: remembers the appended ids (only now, so that an append that failed is not taken
   * for logged when it is retried), and adds the events to the tail, or empties the tail when it
   * would not stay contiguous.
   */
  #keep(appended: PositionedEvent[]): void {
    this.#remember(appended.map((entry) => entry.event.eventId));
    const last = this.#tail.at(-1);
    const contiguous = appended.every(
      (entry, index) =>
        entry.position ===
        (index === 0 ? (last ? last.position + 1 : entry.position) : appended[index - 1]!.position + 1),
    );
    if (!contiguous || this.#tail.length + appended.length > TAIL_LIMIT) {
      this.#tail = [];
      return;
    }
    for (const entry of appended) this.#tail.push(entry);
  }

  /**
   * Appends batches of events that arrive already serialised, each as one JSON array (as the serving
   * thread hands them over), in one transaction. Each array is stored as it came, as a batch of its
   * own; it is parsed once, for the ids and for the projector. Nothing is stored unless every array
   * is valid.
   */
  appendPrinted(batches: readonly string[]): void {
    const parts = batches.map((printed) => {
      const parsed: unknown = JSON.parse(printed);
      if (!Array.isArray(parsed)) throw new TypeError('An append must be a JSON array of events.');
      return { events: parsed.map((raw) => upcastTrusted(raw)), printed };
    });
    if (parts.some((part) => part.events.length > 0)) this.#keep(this.#appendBatches(parts));
  }

  /** Events after a position, in log order, lifted to their current version. */
  readAfter(position: number, limit: number): PositionedEvent[] {
    const tail = this.#tail;
    if (tail.length > 0 && tail[0]!.position <= position + 1 && tail.at(-1)!.position > position) {
      // Drops what was already projected, then serves from memory.
      const start = position + 1 - tail[0]!.position;
      const batch = tail.slice(start, start + limit);
      this.#tail = tail.slice(start + batch.length);
      return batch;
    }
    if (tail.length > 0 && tail.at(-1)!.position <= position) this.#tail = [];
    const read: PositionedEvent[] = [];
    for (const row of this.#readFrom.iterate(position) as Iterable<{ first_position: number; payload: string }>) {
      const events = JSON.parse(row.payload) as unknown[];
      for (let index = Math.max(0, position + 1 - row.first_position); index < events.length; index++) {
        read.push({ position: row.first_position + index, event: upcastTrusted(events[index]) });
        if (read.length === limit) return read;
      }
    }
    return read;
  }
}
