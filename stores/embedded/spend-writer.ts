/**
 * @module stores/embedded/spend-writer
 * Folds the cost of each request whose usage the batch counts for the first time into its key's and
 * its account's spend (projector/read-models/spend), inside the batch's transaction; the counters
 * are read from SQLite, so a restart or a rebuild arrives at the same spend.
 */
import type { UsageRecorded } from '../../contracts/events/index.ts';
import {
  addSpend,
  type SpendCounters,
  tokenSpendOwner,
  userSpendOwner,
} from '../../projector/read-models/spend/spend.ts';
import type { SqliteDatabase } from './database.ts';

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
  readonly #changed = new Map<string, SpendCounters>();

  constructor(writer: SqliteSpendWriter) {
    this.#writer = writer;
  }

  /** Unpriced usage (null cost) and free usage spend nothing and touch no counter. */
  count(event: UsageRecorded): void {
    const { costNanoUsd, tokenId, userId, startedAt } = event.body;
    if (!costNanoUsd) return;
    const startedAtMs = Date.parse(startedAt);
    for (const owner of [tokenId && tokenSpendOwner(tokenId), userId && userSpendOwner(userId)]) {
      if (!owner) continue;
      const current = this.#changed.get(owner) ?? this.#writer.read(owner);
      this.#changed.set(owner, addSpend(current, startedAtMs, costNanoUsd));
    }
  }

  /** Writes the batch's counters; returns them, for the lookups once the transaction commits. */
  finish(): Map<string, SpendCounters> {
    for (const [owner, counters] of this.#changed) this.#writer.write(owner, counters);
    return this.#changed;
  }
}
