/**
 * @module stores/embedded/event-log
 * The durable local event log: an append-only SQLite table. Appends are idempotent by event id, so a
 * publisher that retries after an unclear failure never stores an event twice.
 */
import { type GatewayEvent, partitionKeyOf, streamOf } from '../../contracts/events/index.ts';
import { upcastTrusted } from '../../contracts/events/upcast.ts';
import type { SqliteDatabase } from './database.ts';

export interface PositionedEvent {
  position: number;
  event: GatewayEvent;
}

/** At most this many appended events are kept in memory for the projector (see `#tail`). */
const TAIL_LIMIT = 4_000;

export class SqliteEventLog {
  /**
   * The events this process appended, in log order, not yet read by the projector: it takes them
   * from here instead of reading back and parsing again what it was just given. Only a run of
   * consecutive positions is kept; anything else (a gap, a projector far behind) empties it, and
   * the projector reads from the table as before.
   */
  #tail: PositionedEvent[] = [];
  readonly #insert;
  readonly #appendMany;
  readonly #readAfter;
  readonly #lastPosition;

  constructor(database: SqliteDatabase) {
    this.#insert = database.prepare(
      `INSERT OR IGNORE INTO events (event_id, stream, type, version, partition_key, occurred_at, payload)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#appendMany = database.transaction((events: readonly GatewayEvent[], payloads: readonly string[]) => {
      const appended: PositionedEvent[] = [];
      events.forEach((event, index) => {
        const result = this.#insert.run(
          event.eventId,
          streamOf(event.type),
          event.type,
          event.version,
          partitionKeyOf(event),
          event.occurredAt,
          payloads[index],
        );
        // An event already in the log (a retried append) is ignored, and so left out of the tail.
        if (result.changes > 0) appended.push({ position: Number(result.lastInsertRowid), event });
      });
      return appended;
    });
    this.#readAfter = database.prepare(
      'SELECT position, payload FROM events WHERE position > ? ORDER BY position LIMIT ?',
    );
    this.#lastPosition = database.prepare('SELECT coalesce(max(position), 0) FROM events').pluck();
  }

  /** The position of the newest event. */
  lastPosition(): number {
    return this.#lastPosition.get() as number;
  }

  /** Appends in one transaction (synchronous: it runs on the store worker thread). */
  append(events: readonly GatewayEvent[]): void {
    if (events.length > 0)
      this.#keep(
        this.#appendMany(
          events,
          events.map((event) => JSON.stringify(event)),
        ),
      );
  }

  /** Adds a committed append to the tail, or empties the tail when it would not stay contiguous. */
  #keep(appended: PositionedEvent[]): void {
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
   * Appends events that arrive already serialised, one JSON document per line (how the serving thread
   * hands them over: one string crosses threads far cheaper than a structured clone of the objects).
   * The line is stored as it came; it is parsed once, for the indexed columns and for the projector.
   */
  appendLines(lines: string): void {
    if (lines.length === 0) return;
    const payloads = lines.split('\n');
    this.#keep(
      this.#appendMany(
        payloads.map((payload) => upcastTrusted(JSON.parse(payload))),
        payloads,
      ),
    );
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
    const rows = this.#readAfter.all(position, limit) as Array<{ position: number; payload: string }>;
    return rows.map((row) => ({ position: row.position, event: upcastTrusted(JSON.parse(row.payload)) }));
  }
}
