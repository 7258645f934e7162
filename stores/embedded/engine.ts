/**
 * @module stores/embedded/engine
 * The embedded store's synchronous core: one SQLite file with the event log and every projection, and
 * the projector that applies new events to them. It runs on the store worker thread (store-worker.ts),
 * never on the thread that serves requests: better-sqlite3 blocks its thread for every statement.
 * Projection changes to the key, account and channel lookups are handed to `onChange`, so the serving
 * thread can keep its in-memory copy current.
 */
import type { GatewayEvent } from '../../contracts/events/index.ts';
import type { SpendCounters } from '../../projector/read-models/spend/spend.ts';
import { MemoryLookups } from '../memory-lookups.ts';
import type { TokenUsage } from '../ports.ts';
import { openDatabase, type SqliteDatabase } from './database.ts';
import { SqliteEventLog } from './event-log.ts';
import { type ProjectionOptions, SqliteProjectionWriter } from './projection-writer.ts';
import { SqliteUsageQueries } from './usage-queries.ts';

const BATCH = 1000;

export type LookupChange =
  | { kind: 'document'; collection: string; id: string; body: unknown }
  | { kind: 'usage'; tokenId: string; usage: TokenUsage }
  | { kind: 'spend'; owner: string; counters: SpendCounters };

/** The engine's own lookups (the projection writer reads current documents from them), reporting every put. */
class ReportingLookups extends MemoryLookups {
  readonly changes: LookupChange[] = [];

  override put(collection: string, id: string, body: unknown): void {
    super.put(collection, id, body);
    this.changes.push({ kind: 'document', collection, id, body });
  }

  override putUsage(tokenId: string, usage: TokenUsage): void {
    super.putUsage(tokenId, usage);
    this.changes.push({ kind: 'usage', tokenId, usage });
  }

  override putSpend(owner: string, counters: SpendCounters): void {
    super.putSpend(owner, counters);
    this.changes.push({ kind: 'spend', owner, counters });
  }

  take(): LookupChange[] {
    return this.changes.splice(0, this.changes.length);
  }
}

export class EmbeddedEngine {
  readonly database: SqliteDatabase;
  readonly usage: SqliteUsageQueries;
  readonly #events: SqliteEventLog;
  readonly #lookups = new ReportingLookups();
  readonly #writer: SqliteProjectionWriter;

  constructor(dataDirectory: string, options: ProjectionOptions = {}) {
    this.database = openDatabase(dataDirectory);
    this.#writer = new SqliteProjectionWriter(this.database, this.#lookups, options);
    this.#events = new SqliteEventLog(this.database, (events, printed) =>
      this.#writer.payloads.keepAppended(events, printed),
    );
    this.usage = new SqliteUsageQueries(this.database);
  }

  /** Applies what a previous run logged but did not project, then returns every lookup document. */
  open(): LookupChange[] {
    this.catchUp();
    this.#lookups.take();
    this.#writer.loadLookups();
    return this.#lookups.take();
  }

  /** Appends in one transaction; idempotent by event id. */
  append(events: readonly GatewayEvent[]): void {
    this.#events.append(events);
  }

  /** The same, for batches of events serialised as JSON arrays (see SqliteEventLog.appendPrinted). */
  appendPrinted(printed: readonly string[]): void {
    this.#events.appendPrinted(printed);
  }

  /** Applies every logged event not yet projected; returns how many. */
  catchUp(): number {
    let applied = 0;
    for (;;) {
      const batch = this.#events.readAfter(this.#writer.checkpoint(), BATCH);
      if (batch.length === 0) return applied;
      this.#writer.apply(batch);
      applied += batch.length;
    }
  }

  /** A stored response's document (tombstones included), null when none or lapsed. */
  storedResponse(responseId: string): unknown {
    return this.#writer.responses.find(responseId);
  }

  /** The JSON bytes of an account's live stored responses. */
  storedResponseBytes(userId: string): number {
    return this.#writer.responses.storedBytes(userId);
  }

  /** A captured payload, null when none, lapsed or deleted. */
  payload(requestId: string): unknown {
    return this.#writer.payloads.find(requestId);
  }

  /**
   * Forgets the stored responses and captured payloads lapsed by now, with no new one to do it, and
   * reclaims their pages.
   */
  purgeStoredResponses(): void {
    const { responses, payloads } = this.#writer;
    this.database.transaction(() => {
      responses.purge();
      payloads.purge();
    })();
    responses.reclaim();
  }

  /** The lookup changes made by the projections since the last call. */
  takeChanges(): LookupChange[] {
    return this.#lookups.take();
  }

  lag(): number {
    return Math.max(0, this.#events.lastPosition() - this.#writer.checkpoint());
  }

  close(): void {
    if (!this.database.open) return;
    this.catchUp();
    this.database.close();
  }
}
