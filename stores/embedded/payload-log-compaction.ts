/**
 * @module stores/embedded/payload-log-compaction
 * The embedded log keeps every event, but a captured payload's body only until it is projected: the
 * `payload.captured` events at the given positions are rewritten in place with `data` emptied. The
 * event keeps its id, position and the rest of its body, so the checkpoint, the append's idempotency
 * by id and a replay (which finds nothing to keep) stay as they were; the payloads table is then the
 * one copy, which retention and deletions drop.
 *
 * A logged batch the projection has read whole is rewritten as text: the events as the relay prints
 * them (newEvent's key order) have their `data` emptied by one pattern, without parsing and printing
 * the batch again (about 2 MB for a batch of 100 captured agent requests). A batch read in part, or
 * where the pattern finds fewer events than were captured in it, is parsed and printed instead.
 */
import type { SqliteDatabase } from './database.ts';

interface LoggedEvent {
  type?: unknown;
  body?: { data?: unknown };
}

const PRINTED_DATA =
  /("type":"payload\.captured","version":1,"occurredAt":"[^"\\]*","body":\{"requestId":"[^"\\]*","userId":"[^"\\]*","tokenId":"[^"\\]*","expiresAt":"[^"\\]*","encoding":"[a-z]+","data":")[A-Za-z0-9+/=]+"/g;

/**
 * A logged batch's text with the bodies of its `payload.captured` events emptied, when the pattern
 * finds all `captured` of them; otherwise parsed and printed again.
 */
export function withoutPayloadData(printed: string, captured: number): string {
  let found = 0;
  const emptied = printed.replace(PRINTED_DATA, (_match, head: string) => {
    found++;
    return `${head}"`;
  });
  if (found >= captured) return emptied;
  const events = JSON.parse(printed) as LoggedEvent[];
  for (const event of events) if (event.type === 'payload.captured' && event.body) event.body.data = '';
  return JSON.stringify(events);
}

interface LoggedBatch {
  first_position: number;
  event_count: number;
  payload: string;
}

export class PayloadLogCompaction {
  readonly #batchAt;
  readonly #rewrite;

  constructor(database: SqliteDatabase) {
    this.#batchAt = database.prepare(
      'SELECT first_position, event_count, payload FROM event_batches WHERE first_position <= ? ORDER BY first_position DESC LIMIT 1',
    );
    this.#rewrite = database.prepare('UPDATE event_batches SET payload = ? WHERE first_position = ?');
  }

  /**
   * Empties the `data` of the `payload.captured` events at `positions` (ascending), all projected up to
   * `projectedTo`; one rewrite per logged batch.
   */
  compact(positions: readonly number[], projectedTo: number): void {
    let index = 0;
    while (index < positions.length) {
      const batch = this.#batchAt.get(positions[index]) as LoggedBatch | undefined;
      if (!batch) {
        index++;
        continue;
      }
      const inBatch: number[] = [];
      while (index < positions.length && positions[index]! < batch.first_position + batch.event_count) {
        inBatch.push(positions[index]!);
        index++;
      }
      // A logged batch the projection has only partly read holds payloads still to project: only the
      // events at `positions` may be emptied there, which the pattern cannot tell apart.
      const whole = batch.first_position + batch.event_count - 1 <= projectedTo;
      this.#compactBatch(batch, inBatch, whole);
    }
  }

  #compactBatch(batch: LoggedBatch, positions: readonly number[], whole: boolean): void {
    let found = 0;
    const printed = whole
      ? batch.payload.replace(PRINTED_DATA, (_match, head: string) => {
          found++;
          return `${head}"`;
        })
      : batch.payload;
    const rewritten = found >= positions.length ? printed : this.#parsedAndPrinted(batch, positions);
    if (rewritten !== batch.payload) this.#rewrite.run(rewritten, batch.first_position);
  }

  #parsedAndPrinted(batch: LoggedBatch, positions: readonly number[]): string {
    const events = JSON.parse(batch.payload) as LoggedEvent[];
    let changed = false;
    for (const position of positions) {
      const event = events[position - batch.first_position];
      if (event?.type !== 'payload.captured' || !event.body || event.body.data === '') continue;
      event.body.data = '';
      changed = true;
    }
    return changed ? JSON.stringify(events) : batch.payload;
  }
}
