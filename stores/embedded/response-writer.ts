/**
 * @module stores/embedded/response-writer
 * The stored-responses projection in SQLite: each `response.*` event of a batch evolves its row
 * (projector/read-models/responses), inside the batch's transaction. Rows past their lapse time are
 * deleted as batches with responses arrive, and never read.
 */
import type { GatewayEvent } from '../../contracts/events/index.ts';
import type { StoredResponseDocument } from '../../projector/read-models/responses/evolve.ts';
import * as responses from '../../projector/read-models/responses/evolve.ts';
import type { SqliteDatabase } from './database.ts';

export class SqliteResponseWriter {
  readonly #read;
  readonly #write;
  readonly #purge;

  constructor(database: SqliteDatabase) {
    this.#read = database.prepare('SELECT body FROM stored_responses WHERE response_id = ? AND expires_at > ?').pluck();
    this.#write = database.prepare(
      `INSERT INTO stored_responses (response_id, body, expires_at) VALUES (?, ?, ?)
       ON CONFLICT DO UPDATE SET body = excluded.body, expires_at = excluded.expires_at`,
    );
    this.#purge = database.prepare('DELETE FROM stored_responses WHERE expires_at <= ?');
  }

  /** Applies the batch's response events; call inside the batch's transaction. */
  apply(batch: ReadonlyArray<{ event: GatewayEvent }>, now = Date.now()): void {
    let touched = false;
    for (const { event } of batch) {
      if (!responses.canHandle(event)) continue;
      touched = true;
      const id = responses.documentIdOf(event);
      const current = this.find(id, now);
      const next = responses.evolve(current, event);
      // A replayed event of a response already lapsed stays forgotten.
      if (next !== current && next.expiresAtMs > now) this.#write.run(id, JSON.stringify(next), next.expiresAtMs);
    }
    if (touched) this.#purge.run(now);
  }

  find(responseId: string, now = Date.now()): StoredResponseDocument | null {
    const body = this.#read.get(responseId, now) as string | undefined;
    return body === undefined ? null : (JSON.parse(body) as StoredResponseDocument);
  }
}
