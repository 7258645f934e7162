/**
 * @module stores/embedded/response-writer
 * The stored-responses projection in SQLite: each `response.*` event of a batch evolves its row
 * (projector/read-models/responses), inside the batch's transaction. Each row also keeps its owner,
 * what it weighs (its JSON bytes; a tombstone nothing), for the account's storage limit, and the log
 * position of its `response.stored` event. A deletion, and a row lapsing, take the conversation out
 * of that event too (response-log-compaction.ts): the bytes go from both copies, and the pages they
 * freed are handed back to the file system after the batch (`reclaim`, an incremental vacuum).
 * Lapsed rows are deleted as batches with responses arrive, and by `purge` on the worker's timer.
 */
import type { GatewayEvent } from '../../contracts/events/index.ts';
import type { StoredResponseDocument } from '../../projector/read-models/responses/evolve.ts';
import * as responses from '../../projector/read-models/responses/evolve.ts';
import type { SqliteDatabase } from './database.ts';
import { ResponseLogCompaction } from './response-log-compaction.ts';
import { sweepResponseLog } from './response-log-sweep.ts';

/** Brings a `stored_responses` table from before owners and sizes up to date, once. */
function migrate(database: SqliteDatabase): void {
  const columns = (database.prepare('PRAGMA table_info(stored_responses)').all() as Array<{ name: string }>).map(
    (column) => column.name,
  );
  if (!columns.includes('user_id')) {
    database.transaction(() => {
      database.exec(`
        ALTER TABLE stored_responses ADD COLUMN user_id TEXT NOT NULL DEFAULT '';
        ALTER TABLE stored_responses ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE stored_responses ADD COLUMN log_position INTEGER;
        UPDATE stored_responses SET user_id = json_extract(body, '$.userId'),
          bytes = CASE WHEN json_extract(body, '$.deleted') THEN 0 ELSE length(CAST(body AS BLOB)) END;`);
    })();
  }
  database.exec('CREATE INDEX IF NOT EXISTS stored_responses_owner ON stored_responses (user_id, expires_at)');
}

export class SqliteResponseWriter {
  readonly #database: SqliteDatabase;
  readonly #retentionMs: number;
  readonly #log: ResponseLogCompaction;
  readonly #read;
  readonly #write;
  readonly #lapsed;
  readonly #purge;
  readonly #storedBytes;
  /** pages were freed since the last `reclaim` */
  #freed = false;

  constructor(database: SqliteDatabase, retentionMs = responses.RETENTION_MS) {
    migrate(database);
    this.#database = database;
    this.#retentionMs = retentionMs;
    this.#log = new ResponseLogCompaction(database);
    this.#read = database.prepare(
      'SELECT body, log_position FROM stored_responses WHERE response_id = ? AND expires_at > ?',
    );
    this.#write = database.prepare(
      `INSERT INTO stored_responses (response_id, body, expires_at, user_id, bytes, log_position)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT DO UPDATE SET body = excluded.body, expires_at = excluded.expires_at,
         user_id = excluded.user_id, bytes = excluded.bytes, log_position = excluded.log_position`,
    );
    this.#lapsed = database.prepare(
      'SELECT response_id, log_position FROM stored_responses WHERE expires_at <= ? AND log_position IS NOT NULL',
    );
    this.#purge = database.prepare('DELETE FROM stored_responses WHERE expires_at <= ?');
    this.#storedBytes = database
      .prepare('SELECT coalesce(sum(bytes), 0) FROM stored_responses WHERE user_id = ? AND expires_at > ?')
      .pluck();
  }

  /** Applies the batch's response events; call inside the batch's transaction. */
  apply(batch: ReadonlyArray<{ position: number; event: GatewayEvent }>, now = Date.now()): void {
    let touched = false;
    for (const { position, event } of batch) {
      if (!responses.canHandle(event)) continue;
      touched = true;
      const id = responses.documentIdOf(event);
      const row = this.#row(id, now);
      const current = row ? (JSON.parse(row.body) as StoredResponseDocument) : null;
      const next = responses.evolve(current, event, this.#retentionMs);
      if (next === current) continue;
      // A replayed event of a response already lapsed stays forgotten, and out of the log.
      if (next.expiresAtMs <= now) {
        if (event.type === 'response.stored') this.#compact(position, id);
        continue;
      }
      const text = JSON.stringify(next);
      if (next.deleted) {
        if (row?.log_position != null) this.#compact(row.log_position, id);
        this.#write.run(id, text, next.expiresAtMs, next.userId, 0, null);
      } else {
        this.#write.run(id, text, next.expiresAtMs, next.userId, Buffer.byteLength(text), position);
      }
    }
    if (touched) this.purge(now);
  }

  /**
   * Once per file, before the first batch: the log's conversations of responses deleted or lapsed
   * before rows kept their log position are compacted too (response-log-sweep.ts).
   */
  sweepLog(checkpoint: number, now = Date.now()): void {
    if (sweepResponseLog(this.#database, this.#log, checkpoint, now).compacted > 0) this.#freed = true;
    this.reclaim();
  }

  /** Forgets the rows lapsed by `now`, their conversations in the log with them; call inside a transaction. */
  purge(now = Date.now()): void {
    const lapsed = this.#lapsed.all(now) as Array<{ response_id: string; log_position: number }>;
    for (const { response_id, log_position } of lapsed) this.#compact(log_position, response_id);
    if (this.#purge.run(now).changes > 0) this.#freed = true;
  }

  #compact(position: number, responseId: string): void {
    if (this.#log.compact(position, responseId)) this.#freed = true;
  }

  /**
   * After the batch's commit: hands the pages its deletions freed back to the file system (the file
   * is opened with incremental auto-vacuum, database.ts). Nothing to do after most batches.
   */
  reclaim(): void {
    if (!this.#freed) return;
    this.#freed = false;
    this.#database.pragma('incremental_vacuum');
  }

  #row(responseId: string, now: number): { body: string; log_position: number | null } | undefined {
    return this.#read.get(responseId, now) as { body: string; log_position: number | null } | undefined;
  }

  find(responseId: string, now = Date.now()): StoredResponseDocument | null {
    const row = this.#row(responseId, now);
    return row === undefined ? null : (JSON.parse(row.body) as StoredResponseDocument);
  }

  /** The JSON bytes of the account's live responses at `now`. */
  storedBytes(userId: string, now = Date.now()): number {
    return this.#storedBytes.get(userId, now) as number;
  }
}
