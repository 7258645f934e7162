/**
 * @module stores/embedded/payload-writer
 * Captured payloads in SQLite, in their own tables beside (not in) the usage rows: one row per request,
 * its document compressed as published (docs/payloads.md). Applied inside the batch's transaction.
 * The table is the one copy: a `payload.captured` event is kept here as it is appended, in the
 * append's transaction, and the log stores it with `data` emptied (payload-log-compaction.ts; the
 * projector empties any it finds whole later), so a lapse or a deletion here forgets the body
 * everywhere in the file. An erasure (`payloads.deleted`) is kept as a mark, so a payload of the key or account that
 * arrives after it (a request that was still running) is not kept either, in whatever order they land.
 */
import type { GatewayEvent, PayloadCaptured, PayloadsDeleted } from '../../contracts/events/index.ts';
import type { StoredPayload } from '../ports.ts';
import type { SqliteDatabase } from './database.ts';
import { PayloadLogCompaction, withoutPayloadData } from './payload-log-compaction.ts';

export const payloadSchema = `
CREATE TABLE IF NOT EXISTS captured_payloads (
  request_id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  token_id TEXT NOT NULL,
  captured_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  encoding TEXT NOT NULL,
  data BLOB NOT NULL,
  raw_bytes INTEGER NOT NULL,
  stored_bytes INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS captured_payloads_owner ON captured_payloads (user_id, token_id);
CREATE INDEX IF NOT EXISTS captured_payloads_expiry ON captured_payloads (expires_at);
-- token_id '' erases every key of the account
CREATE TABLE IF NOT EXISTS payload_erasures (
  user_id TEXT NOT NULL,
  token_id TEXT NOT NULL,
  PRIMARY KEY (user_id, token_id)
);
`;

interface PayloadRow {
  request_id: string;
  user_id: string;
  token_id: string;
  captured_at: number;
  expires_at: number;
  encoding: 'zstd' | 'gzip';
  data: Buffer;
  raw_bytes: number;
  stored_bytes: number;
}

export class SqlitePayloadWriter {
  readonly #log: PayloadLogCompaction;
  readonly #insert;
  readonly #erased;
  readonly #erase;
  readonly #deleteOwned;
  readonly #purge;
  readonly #read;

  constructor(database: SqliteDatabase) {
    database.exec(payloadSchema);
    this.#log = new PayloadLogCompaction(database);
    this.#insert = database.prepare(
      `INSERT OR IGNORE INTO captured_payloads
       (request_id, user_id, token_id, captured_at, expires_at, encoding, data, raw_bytes, stored_bytes)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#erased = database.prepare("SELECT 1 FROM payload_erasures WHERE user_id = ? AND token_id IN (?, '')").pluck();
    this.#erase = database.prepare('INSERT OR IGNORE INTO payload_erasures (user_id, token_id) VALUES (?, ?)');
    this.#deleteOwned = database.prepare(
      "DELETE FROM captured_payloads WHERE user_id = ? AND (? = '' OR token_id = ?)",
    );
    this.#purge = database.prepare('DELETE FROM captured_payloads WHERE expires_at <= ?');
    this.#read = database.prepare('SELECT * FROM captured_payloads WHERE request_id = ? AND expires_at > ?');
  }

  /**
   * At the append, in its transaction: keeps the appended payloads, and answers the batch's text with
   * their bodies emptied, which is what the log stores. The projector, applying the same events
   * later, finds them kept (a crash in between loses nothing: both were one transaction).
   */
  keepAppended(events: readonly GatewayEvent[], printed: string): string {
    let captured = 0;
    const now = Date.now();
    for (const event of events) {
      if (event.type !== 'payload.captured') continue;
      this.#keep(event, now);
      // The projector gets these very objects from the log's tail: emptied, it passes them by, and
      // the tail does not hold the bodies until then.
      event.body.data = '';
      captured++;
    }
    return captured === 0 ? printed : withoutPayloadData(printed, captured);
  }

  /** Applies the batch's payload events; call inside the batch's transaction. */
  apply(batch: ReadonlyArray<{ position: number; event: GatewayEvent }>, now = Date.now()): void {
    const captured: number[] = [];
    for (const { position, event } of batch) {
      if (event.type === 'payload.captured' && event.body.data !== '') {
        this.#keep(event, now);
        captured.push(position);
      } else if (event.type === 'payloads.deleted') {
        this.#forget(event);
      }
    }
    if (captured.length === 0) return;
    this.#log.compact(captured, batch[batch.length - 1]!.position);
    this.purge(now);
  }

  #keep({ body, occurredAt }: PayloadCaptured, now: number): void {
    const expiresAt = Date.parse(body.expiresAt);
    // A replay of an emptied event, a lapsed payload, or one of an erased key: nothing to keep.
    if (body.data === '' || expiresAt <= now || this.#erased.get(body.userId, body.tokenId)) return;
    const data = Buffer.from(body.data, 'base64');
    this.#insert.run(
      body.requestId,
      body.userId,
      body.tokenId,
      Date.parse(occurredAt),
      expiresAt,
      body.encoding,
      data,
      body.rawBytes,
      data.length,
    );
  }

  #forget({ body }: PayloadsDeleted): void {
    const tokenId = body.tokenId ?? '';
    this.#erase.run(body.userId, tokenId);
    this.#deleteOwned.run(body.userId, tokenId, tokenId);
  }

  /** Forgets the payloads lapsed by `now`; call inside a transaction. */
  purge(now = Date.now()): void {
    this.#purge.run(now);
  }

  find(requestId: string, now = Date.now()): StoredPayload | null {
    const row = this.#read.get(requestId, now) as PayloadRow | undefined;
    if (!row) return null;
    return {
      requestId: row.request_id,
      userId: row.user_id,
      tokenId: row.token_id,
      capturedAt: new Date(row.captured_at).toISOString(),
      expiresAt: new Date(row.expires_at).toISOString(),
      encoding: row.encoding,
      data: new Uint8Array(row.data),
      rawBytes: row.raw_bytes,
      storedBytes: row.stored_bytes,
    };
  }
}
