/**
 * @module stores/cluster/clickhouse-payloads
 * Captured payloads in ClickHouse, in their own tables beside the usage rows (docs/payloads.md). Both
 * are written by the projector from the traffic topic, in the SQL ClickHouse 18.16 accepts:
 * - `captured_payloads`: one row per request (ReplacingMergeTree by request id, so a redelivered event
 *   merges away), its document compressed as published and kept as that base64 text.
 * - `payload_erasures`: the keys (and, with `token_id` '', the accounts) whose payloads were deleted.
 *   A deletion is an `ALTER TABLE … DELETE` mutation, which ClickHouse applies in the background; the
 *   mark hides the rows at once, and keeps out a payload of the key that arrives after it.
 * Times are epoch milliseconds (UInt64): 18.16 has no table TTL, so the projector's retention timer
 * deletes lapsed rows (`purgeLapsed`) and every read skips them meanwhile.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import type { GatewayEvent, PayloadCaptured } from '../../contracts/events/index.ts';
import type { PayloadStore, StoredPayload } from '../ports.ts';
import { identifier, stringList, stringLiteral } from './clickhouse-sql.ts';

export function payloadSchemaStatements(db: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${db}.captured_payloads (
      request_id String,
      user_id String,
      token_id String,
      captured_at UInt64,
      expires_at UInt64,
      encoding String,
      data String,
      raw_bytes UInt64,
      stored_bytes UInt64
    ) ENGINE = ReplacingMergeTree()
    ORDER BY request_id`,
    `CREATE TABLE IF NOT EXISTS ${db}.payload_erasures (
      user_id String,
      token_id String
    ) ENGINE = ReplacingMergeTree()
    ORDER BY (user_id, token_id)`,
  ];
}

/** Whether the batch has anything for the payload tables. */
export function isPayloadEvent(event: GatewayEvent): boolean {
  return event.type === 'payload.captured' || event.type === 'payloads.deleted';
}

/** Rows of an erased key or account are not read (the mutation that deletes them may still run). */
const notErased = (db: string) =>
  `(user_id, token_id) NOT IN (SELECT user_id, token_id FROM ${db}.payload_erasures)
   AND (user_id, '') NOT IN (SELECT user_id, token_id FROM ${db}.payload_erasures)`;

export class ClickHousePayloads implements PayloadStore {
  readonly #client: ClickHouseClient;
  readonly #db: string;

  constructor(client: ClickHouseClient, database: string) {
    this.#client = client;
    this.#db = identifier(database);
  }

  /** Applies a batch's payload events: erasures first, then the payloads not erased. Idempotent. */
  async write(events: readonly GatewayEvent[]): Promise<void> {
    for (const event of events) {
      if (event.type !== 'payloads.deleted') continue;
      const { userId, tokenId } = event.body;
      await this.#client.insert({
        table: `${this.#db}.payload_erasures`,
        values: [{ user_id: userId, token_id: tokenId ?? '' }],
        format: 'JSONEachRow',
      });
      const scope = tokenId === null ? '' : ` AND token_id = ${stringLiteral(tokenId)}`;
      await this.#client.command({
        query: `ALTER TABLE ${this.#db}.captured_payloads DELETE WHERE user_id = ${stringLiteral(userId)}${scope}`,
      });
    }
    const captured = events.filter((event): event is PayloadCaptured => event.type === 'payload.captured');
    if (captured.length === 0) return;
    const erased = await this.#erasedOf([...new Set(captured.map((event) => event.body.userId))]);
    const now = Date.now();
    const values = captured
      .filter(({ body }) => !erased.has(`${body.userId}\u0000`) && !erased.has(`${body.userId}\u0000${body.tokenId}`))
      .filter(({ body }) => body.data !== '' && Date.parse(body.expiresAt) > now)
      .map(({ body, occurredAt }) => ({
        request_id: body.requestId,
        user_id: body.userId,
        token_id: body.tokenId,
        captured_at: Date.parse(occurredAt),
        expires_at: Date.parse(body.expiresAt),
        encoding: body.encoding,
        data: body.data,
        raw_bytes: body.rawBytes,
        stored_bytes: body.storedBytes,
      }));
    if (values.length > 0) {
      await this.#client.insert({ table: `${this.#db}.captured_payloads`, values, format: 'JSONEachRow' });
    }
  }

  async #erasedOf(userIds: string[]): Promise<Set<string>> {
    const rows = (await (
      await this.#client.query({
        query: `SELECT user_id, token_id FROM ${this.#db}.payload_erasures WHERE user_id IN ${stringList(userIds)}`,
        format: 'JSONEachRow',
      })
    ).json()) as Array<{ user_id: string; token_id: string }>;
    return new Set(rows.map((row) => `${row.user_id}\u0000${row.token_id}`));
  }

  async find(requestId: string, now = Date.now()): Promise<StoredPayload | null> {
    const rows = (await (
      await this.#client.query({
        // UInt64 columns read as text (JSON would quote them anyway), under names of their own: an
        // alias named as its column would stand for it in the WHERE clause too.
        query: `SELECT request_id, user_id, token_id, toString(captured_at) AS captured_ms,
            toString(expires_at) AS expires_ms, encoding, data, toString(raw_bytes) AS raw,
            toString(stored_bytes) AS stored
          FROM ${this.#db}.captured_payloads FINAL
          WHERE request_id = ${stringLiteral(requestId)} AND expires_at > ${Math.floor(now)} AND ${notErased(this.#db)}
          LIMIT 1`,
        format: 'JSONEachRow',
      })
    ).json()) as Array<Record<string, string>>;
    const row = rows[0];
    if (!row) return null;
    return {
      requestId: row['request_id']!,
      userId: row['user_id']!,
      tokenId: row['token_id']!,
      capturedAt: new Date(Number(row['captured_ms'])).toISOString(),
      expiresAt: new Date(Number(row['expires_ms'])).toISOString(),
      encoding: row['encoding'] as StoredPayload['encoding'],
      data: Buffer.from(row['data']!, 'base64'),
      rawBytes: Number(row['raw']),
      storedBytes: Number(row['stored']),
    };
  }

  /** Deletes the rows lapsed by `now` (the projector's retention timer). */
  async purgeLapsed(now = Date.now()): Promise<void> {
    await this.#client.command({
      query: `ALTER TABLE ${this.#db}.captured_payloads DELETE WHERE expires_at <= ${Math.floor(now)}`,
    });
  }
}
