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

export class SqliteEventLog {
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
      events.forEach((event, index) => {
        this.#insert.run(
          event.eventId,
          streamOf(event.type),
          event.type,
          event.version,
          partitionKeyOf(event),
          event.occurredAt,
          payloads[index],
        );
      });
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
      this.#appendMany(
        events,
        events.map((event) => JSON.stringify(event)),
      );
  }

  /**
   * Appends events that arrive already serialised, one JSON document per line (how the serving thread
   * hands them over: one string crosses threads far cheaper than a structured clone of the objects).
   * The line is stored as it came; it is parsed only for the indexed columns.
   */
  appendLines(lines: string): void {
    if (lines.length === 0) return;
    const payloads = lines.split('\n');
    this.#appendMany(
      payloads.map((payload) => JSON.parse(payload) as GatewayEvent),
      payloads,
    );
  }

  /** Events after a position, in log order, lifted to their current version. */
  readAfter(position: number, limit: number): PositionedEvent[] {
    const rows = this.#readAfter.all(position, limit) as Array<{ position: number; payload: string }>;
    return rows.map((row) => ({ position: row.position, event: upcastTrusted(JSON.parse(row.payload)) }));
  }
}
