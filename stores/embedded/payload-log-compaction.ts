/**
 * @module stores/embedded/payload-log-compaction
 * The embedded log keeps every event, but a captured payload's body only until it is projected: the
 * `payload.captured` events at the given positions are rewritten in place with `data` emptied. The
 * event keeps its id, position and the rest of its body, so the checkpoint, the append's idempotency
 * by id and a replay (which finds nothing to keep) stay as they were; the payloads table is then the
 * one copy, which retention and deletions drop.
 */
import type { SqliteDatabase } from './database.ts';

interface LoggedEvent {
  type?: unknown;
  body?: { data?: unknown };
}

export class PayloadLogCompaction {
  readonly #batchAt;
  readonly #rewrite;

  constructor(database: SqliteDatabase) {
    this.#batchAt = database.prepare(
      'SELECT first_position, payload FROM event_batches WHERE first_position <= ? ORDER BY first_position DESC LIMIT 1',
    );
    this.#rewrite = database.prepare('UPDATE event_batches SET payload = ? WHERE first_position = ?');
  }

  /** Empties the `data` of the `payload.captured` events at `positions` (ascending); one rewrite per logged batch. */
  compact(positions: readonly number[]): void {
    let row: { first_position: number; events: LoggedEvent[]; changed: boolean } | null = null;
    for (const position of positions) {
      if (!row || position - row.first_position >= row.events.length) {
        this.#save(row);
        const found = this.#batchAt.get(position) as { first_position: number; payload: string } | undefined;
        if (!found) continue;
        row = {
          first_position: found.first_position,
          events: JSON.parse(found.payload) as LoggedEvent[],
          changed: false,
        };
      }
      const event = row.events[position - row.first_position];
      if (event?.type !== 'payload.captured' || !event.body || event.body.data === '') continue;
      event.body.data = '';
      row.changed = true;
    }
    this.#save(row);
  }

  #save(row: { first_position: number; events: LoggedEvent[]; changed: boolean } | null): void {
    if (row?.changed) this.#rewrite.run(JSON.stringify(row.events), row.first_position);
  }
}
