/**
 * @module stores/embedded/event-log
 * The durable local event log: an append-only SQLite table. Appends are idempotent by event id, so a
 * publisher that retries after an unclear failure never stores an event twice.
 */
import { type GatewayEvent, partitionKeyOf, streamOf } from '../../contracts/events/index.ts';
import { upcastTrusted } from '../../contracts/events/upcast.ts';
import type { EventLog } from '../ports.ts';
import type { SqliteDatabase } from './database.ts';

export interface PositionedEvent {
  position: number;
  event: GatewayEvent;
}

export class SqliteEventLog implements EventLog {
  readonly #insert;
  readonly #appendMany;
  readonly #readAfter;
  readonly #lastPosition;
  readonly #listeners: Array<() => void> = [];

  constructor(database: SqliteDatabase) {
    this.#insert = database.prepare(
      `INSERT OR IGNORE INTO events (event_id, stream, type, version, partition_key, occurred_at, payload)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#appendMany = database.transaction((events: readonly GatewayEvent[]) => {
      for (const event of events) {
        this.#insert.run(
          event.eventId,
          streamOf(event.type),
          event.type,
          event.version,
          partitionKeyOf(event),
          event.occurredAt,
          JSON.stringify(event),
        );
      }
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

  async append(events: readonly GatewayEvent[]): Promise<void> {
    if (events.length === 0) return;
    this.#appendMany(events);
    for (const listener of this.#listeners) listener();
  }

  /** Events after a position, in log order, lifted to their current version. */
  readAfter(position: number, limit: number): PositionedEvent[] {
    const rows = this.#readAfter.all(position, limit) as Array<{ position: number; payload: string }>;
    return rows.map((row) => ({ position: row.position, event: upcastTrusted(JSON.parse(row.payload)) }));
  }

  /** Tells the in-process projector there is something new to apply. */
  onAppended(listener: () => void): void {
    this.#listeners.push(listener);
  }
}
