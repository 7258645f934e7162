/**
 * @module stores/embedded/spend-writer
 * Folds the cost of each request whose usage the batch counts for the first time into its key's and
 * its account's spend (projector/read-models/spend), inside the batch's transaction; the counters
 * are read from SQLite, so a restart or a rebuild arrives at the same spend.
 */
import type { UsageRecorded } from '../../contracts/events/index.ts';
import {
  addSpend,
  periodStartMs,
  type SpendCounters,
  tokenSpendOwner,
  userSpendOwner,
} from '../../projector/read-models/spend/spend.ts';
import type { SqliteDatabase } from './database.ts';

const MIGRATION = 'spend-from-recorded-costs';

/** Folds the costs already in `requests` into `spend`, once per file (recorded in `projection_migrations`). */
function migrateSpend(database: SqliteDatabase, writer: SqliteSpendWriter): void {
  const done = database.prepare('SELECT 1 FROM projection_migrations WHERE name = ?').get(MIGRATION);
  if (done) return;
  database.transaction(() => {
    const batch = writer.start();
    const rows = database
      .prepare(
        `SELECT token_id, user_id, started_at, cost_nano_usd FROM requests
         WHERE usage_applied = 1 AND cost_nano_usd > 0 ORDER BY started_at`,
      )
      .iterate() as Iterable<{ token_id: string; user_id: string; started_at: number; cost_nano_usd: number }>;
    for (const row of rows) batch.countCost(row.token_id, row.user_id, row.started_at, row.cost_nano_usd);
    batch.finish();
    database.prepare('INSERT INTO projection_migrations (name) VALUES (?)').run(MIGRATION);
  })();
}

export class SqliteSpendWriter {
  readonly #read;
  readonly #write;
  readonly #readAll;

  constructor(database: SqliteDatabase) {
    this.#read = database.prepare('SELECT counters FROM spend WHERE owner = ?').pluck();
    this.#write = database.prepare(
      'INSERT INTO spend (owner, counters) VALUES (?, ?) ON CONFLICT DO UPDATE SET counters = excluded.counters',
    );
    this.#readAll = database.prepare('SELECT owner, counters FROM spend');
    migrateSpend(database, this);
  }

  /** Opens one batch: `count` each usage counted now, then `finish` inside the transaction. */
  start(): SpendBatch {
    return new SpendBatch(this);
  }

  read(owner: string): SpendCounters | undefined {
    const stored = this.#read.get(owner) as string | undefined;
    return stored ? (JSON.parse(stored) as SpendCounters) : undefined;
  }

  write(owner: string, counters: SpendCounters): void {
    this.#write.run(owner, JSON.stringify(counters));
  }

  all(): Array<{ owner: string; counters: SpendCounters }> {
    return (this.#readAll.all() as Array<{ owner: string; counters: string }>).map((row) => ({
      owner: row.owner,
      counters: JSON.parse(row.counters) as SpendCounters,
    }));
  }
}

export class SpendBatch {
  readonly #writer: SqliteSpendWriter;
  /**
   * The batch's costs summed per owner and per day of the request's start: every budget period starts
   * on a day, so a day's sum folds in as one cost, and the counters do not depend on the order costs
   * arrive in (spend.ts). Folding each cost in as it came built the counters anew twice per request.
   */
  readonly #costs = new Map<string, Map<number, number>>();

  constructor(writer: SqliteSpendWriter) {
    this.#writer = writer;
  }

  /** Unpriced usage (null cost) and free usage spend nothing and touch no counter. */
  count(event: UsageRecorded): void {
    const { costNanoUsd, tokenId, userId, startedAt } = event.body;
    if (costNanoUsd) this.countCost(tokenId, userId, Date.parse(startedAt), costNanoUsd);
  }

  countCost(tokenId: string, userId: string, startedAtMs: number, costNanoUsd: number): void {
    const day = periodStartMs('daily', startedAtMs);
    if (tokenId) this.#add(tokenSpendOwner(tokenId), day, costNanoUsd);
    if (userId) this.#add(userSpendOwner(userId), day, costNanoUsd);
  }

  #add(owner: string, day: number, costNanoUsd: number): void {
    let days = this.#costs.get(owner);
    if (!days) {
      days = new Map();
      this.#costs.set(owner, days);
    }
    days.set(day, (days.get(day) ?? 0) + costNanoUsd);
  }

  /** Writes the batch's counters; returns them, for the lookups once the transaction commits. */
  finish(): Map<string, SpendCounters> {
    const changed = new Map<string, SpendCounters>();
    for (const [owner, days] of this.#costs) {
      let counters = this.#writer.read(owner);
      for (const [day, costNanoUsd] of days) counters = addSpend(counters, day, costNanoUsd);
      this.#writer.write(owner, counters!);
      changed.set(owner, counters!);
    }
    this.#costs.clear();
    return changed;
  }
}
