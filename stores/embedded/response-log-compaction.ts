/**
 * @module stores/embedded/response-log-compaction
 * The embedded log keeps every event, but not every conversation: once a stored response is deleted
 * or lapses, its `response.stored` event is rewritten in place without the conversation (its items
 * and settings; read-models/responses `withoutConversation`). The event keeps its id, position and
 * the rest of its body, so the projection checkpoint, the append's idempotency by id and a replay
 * (which makes the same tombstone, or skips the lapsed turn as before) all stay as they were; only
 * the text the owner asked to be forgotten goes, and with it the bytes it took.
 */
import type { ResponseStored } from '../../contracts/events/index.ts';
import { withoutConversation } from '../../projector/read-models/responses/evolve.ts';
import type { SqliteDatabase } from './database.ts';

interface LoggedEvent {
  type?: unknown;
  body?: { responseId?: unknown };
}

export class ResponseLogCompaction {
  readonly #batchAt;
  readonly #rewrite;

  constructor(database: SqliteDatabase) {
    this.#batchAt = database.prepare(
      'SELECT first_position, payload FROM event_batches WHERE first_position <= ? ORDER BY first_position DESC LIMIT 1',
    );
    this.#rewrite = database.prepare('UPDATE event_batches SET payload = ? WHERE first_position = ?');
  }

  /**
   * Takes the conversation out of the `response.stored` event of `responseId` logged at `position`;
   * answers whether the log changed. Anything else at that position is left alone.
   */
  compact(position: number, responseId: string): boolean {
    const row = this.#batchAt.get(position) as { first_position: number; payload: string } | undefined;
    if (!row) return false;
    const events = JSON.parse(row.payload) as LoggedEvent[];
    const index = position - row.first_position;
    const event = events[index];
    if (event?.type !== 'response.stored' || event.body?.responseId !== responseId) return false;
    const body = event.body as ResponseStored['body'];
    const compacted = withoutConversation(body);
    if (body.inputItems.length === 0 && body.outputItems.length === 0 && Object.keys(body.settings).length === 0) {
      return false;
    }
    events[index] = { ...event, body: compacted };
    this.#rewrite.run(JSON.stringify(events), row.first_position);
    return true;
  }
}
