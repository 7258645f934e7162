/**
 * @module stores/cluster/outbox
 * The durable local outbox of a gateway node: a SQLite file under DATA_DIR where events wait while
 * Kafka is unreachable. Rows are taken in insertion order and deleted only after Kafka acknowledged
 * them, so a crash between the two re-sends (the projections deduplicate) and never loses.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { GatewayEvent } from '../../contracts/events/index.ts';

export class Outbox {
  readonly #database: Database.Database;
  readonly #insert;
  readonly #take;
  readonly #remove;
  readonly #count;
  #size: number;

  constructor(dataDirectory: string, fileName = 'outbox.db') {
    mkdirSync(dataDirectory, { recursive: true });
    this.#database = new Database(path.join(dataDirectory, fileName));
    this.#database.pragma('journal_mode = WAL');
    // FULL: an event handed to the outbox must survive a power loss, not only a process crash.
    this.#database.pragma('synchronous = FULL');
    this.#database.exec(
      'CREATE TABLE IF NOT EXISTS outbox (sequence INTEGER PRIMARY KEY AUTOINCREMENT, payload TEXT NOT NULL)',
    );
    const insert = this.#database.prepare('INSERT INTO outbox (payload) VALUES (?)');
    this.#insert = this.#database.transaction((events: readonly GatewayEvent[]) => {
      for (const event of events) insert.run(JSON.stringify(event));
    });
    this.#take = this.#database.prepare('SELECT sequence, payload FROM outbox ORDER BY sequence LIMIT ?');
    this.#remove = this.#database.prepare('DELETE FROM outbox WHERE sequence <= ?');
    this.#count = this.#database.prepare('SELECT count(*) FROM outbox').pluck();
    this.#size = this.#count.get() as number;
  }

  /** Events waiting to be sent. */
  get size(): number {
    return this.#size;
  }

  add(events: readonly GatewayEvent[]): void {
    this.#insert(events);
    this.#size += events.length;
  }

  /** The oldest events, and the sequence to pass to `remove` once they are sent. */
  peek(limit: number): { events: GatewayEvent[]; through: number } {
    const rows = this.#take.all(limit) as Array<{ sequence: number; payload: string }>;
    return { events: rows.map((row) => JSON.parse(row.payload) as GatewayEvent), through: rows.at(-1)?.sequence ?? 0 };
  }

  remove(through: number): void {
    this.#remove.run(through);
    this.#size = this.#count.get() as number;
  }

  close(): void {
    this.#database.close();
  }
}
