/**
 * @module stores/embedded/projection-writer
 * Applies a batch of logged events to every embedded projection and moves the checkpoint, all in one
 * SQLite transaction: a crash leaves either the whole batch applied or none of it. In-memory lookups
 * are updated only after the commit.
 */
import { usageFactOf } from '../../contracts/events/traffic-facts.ts';
import { documentModels } from '../../projector/read-models/document-models.ts';
import type { MemoryLookups } from '../memory-lookups.ts';
import type { TokenUsage } from '../ports.ts';
import type { SqliteDatabase } from './database.ts';
import type { PositionedEvent } from './event-log.ts';
import { SqlitePayloadWriter } from './payload-writer.ts';
import { SqliteResponseWriter } from './response-writer.ts';
import { SqliteSpendWriter } from './spend-writer.ts';
import { SqliteUsageWriter } from './usage-writer.ts';

const CHECKPOINT = 'embedded';

export interface ProjectionOptions {
  /** how long a stored response is kept (STORED_RESPONSES_RETENTION_DAYS; default 30 days) */
  responseRetentionMs?: number;
}

export class SqliteProjectionWriter {
  readonly #database: SqliteDatabase;
  readonly #lookups: MemoryLookups;
  readonly #usage: SqliteUsageWriter;
  readonly #spend: SqliteSpendWriter;
  readonly responses: SqliteResponseWriter;
  readonly payloads: SqlitePayloadWriter;
  readonly #applyBatch;
  readonly #readCheckpoint;
  readonly #readTokenUsage;

  constructor(database: SqliteDatabase, lookups: MemoryLookups, { responseRetentionMs }: ProjectionOptions = {}) {
    this.#database = database;
    this.#lookups = lookups;
    this.#usage = new SqliteUsageWriter(database);
    this.#spend = new SqliteSpendWriter(database);
    this.responses = new SqliteResponseWriter(database, responseRetentionMs);
    this.payloads = new SqlitePayloadWriter(database);
    this.#readCheckpoint = database.prepare('SELECT position FROM projection_checkpoint WHERE name = ?').pluck();
    this.#readTokenUsage = database.prepare('SELECT used_tokens, last_used_at FROM token_usage WHERE token_id = ?');
    this.responses.sweepLog(this.checkpoint());
    const putDocument = database.prepare(
      'INSERT INTO documents (collection, id, body) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET body = excluded.body',
    );
    const deleteDocument = database.prepare('DELETE FROM documents WHERE collection = ? AND id = ?');
    const saveCheckpoint = database.prepare(
      'INSERT INTO projection_checkpoint (name, position) VALUES (?, ?) ON CONFLICT DO UPDATE SET position = excluded.position',
    );
    this.#applyBatch = database.transaction((batch: readonly PositionedEvent[]) => {
      const documents = new Map<string, { collection: string; id: string; body: unknown }>();
      const spend = this.#spend.start();
      const traffic = this.#usage.start(batch, (usage) => spend.count(usage));
      for (const { event } of batch) {
        for (const model of documentModels) {
          if (!model.canHandle(event)) continue;
          const id = model.documentIdOf(event);
          const key = `${model.collection}\u0000${id}`;
          const current = documents.has(key) ? documents.get(key)!.body : this.#currentDocument(model.collection, id);
          const next = model.evolve(current ?? null, event);
          documents.set(key, { collection: model.collection, id, body: next });
          if (next) putDocument.run(model.collection, id, JSON.stringify(next));
          else deleteDocument.run(model.collection, id);
        }
        traffic.apply(event);
      }
      this.responses.apply(batch);
      this.payloads.apply(batch);
      // The batch's summed rollups, written in the same transaction as the checkpoint.
      const touchedTokens = traffic.finish();
      const spent = spend.finish();
      saveCheckpoint.run(CHECKPOINT, batch[batch.length - 1]!.position);
      return { documents: [...documents.values()], touchedTokens, spent };
    });
  }

  #currentDocument(collection: string, id: string): unknown {
    switch (collection) {
      case 'tokens':
        return this.#lookups.tokenById(id);
      case 'users':
        return this.#lookups.userById(id);
      default:
        return this.#lookups.channels().find((channel) => channel.channelId === id);
    }
  }

  checkpoint(): number {
    return (this.#readCheckpoint.get(CHECKPOINT) as number | undefined) ?? 0;
  }

  apply(batch: readonly PositionedEvent[]): void {
    if (batch.length === 0) return;
    const { documents, touchedTokens, spent } = this.#applyBatch(withUsageFacts(batch));
    this.responses.reclaim();
    for (const { collection, id, body } of documents) this.#lookups.put(collection, id, body);
    for (const tokenId of touchedTokens) this.#lookups.putUsage(tokenId, this.#readUsage(tokenId));
    for (const [owner, counters] of spent) this.#lookups.putSpend(owner, counters);
  }

  #readUsage(tokenId: string): TokenUsage {
    const row = this.#readTokenUsage.get(tokenId) as { used_tokens: number; last_used_at: string | null } | undefined;
    return { usedTokens: row?.used_tokens ?? 0, lastUsedAt: row?.last_used_at ?? null };
  }

  /** Fills the in-memory lookups from the persisted documents (process start). */
  loadLookups(): void {
    this.#lookups.clear();
    const rows = this.#database.prepare('SELECT collection, id, body FROM documents').all() as Array<{
      collection: string;
      id: string;
      body: string;
    }>;
    for (const row of rows) this.#lookups.put(row.collection, row.id, JSON.parse(row.body));
    const usage = this.#database.prepare('SELECT token_id, used_tokens, last_used_at FROM token_usage').all() as Array<{
      token_id: string;
      used_tokens: number;
      last_used_at: string | null;
    }>;
    for (const row of usage)
      this.#lookups.putUsage(row.token_id, { usedTokens: row.used_tokens, lastUsedAt: row.last_used_at });
    for (const { owner, counters } of this.#spend.all()) this.#lookups.putSpend(owner, counters);
  }
}

/**
 * The batch with each request's usage fact after its request, at the same position (see
 * traffic-facts.ts): the checkpoint moves past a position only with both of its facts applied.
 */
function withUsageFacts(batch: readonly PositionedEvent[]): readonly PositionedEvent[] {
  let facts: PositionedEvent[] | null = null;
  for (let index = 0; index < batch.length; index++) {
    const entry = batch[index]!;
    const usage = usageFactOf(entry.event);
    if (usage === null) {
      facts?.push(entry);
      continue;
    }
    facts ??= batch.slice(0, index);
    facts.push(entry, { position: entry.position, event: usage });
  }
  return facts ?? batch;
}
