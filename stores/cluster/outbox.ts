/**
 * @module stores/cluster/outbox
 * The durable local outbox of a gateway node: a SQLite file under DATA_DIR where events wait while
 * Kafka is unreachable. Rows are taken in insertion order and deleted only after Kafka acknowledged
 * them, so a crash between the two re-sends and never loses.
 *
 * A row is in doubt when a send of it may have reached the log: its first send failed (Kafka may
 * have written it without answering), or a drain started sending it. Sent again it would be in the
 * log twice, at other offsets, where the projector's per-partition usage offsets cannot tell it is
 * the same request; the event log settles the doubt first (outbox-doubt.ts). Rows that only queued
 * behind others were never sent and are not in doubt.
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
  readonly #doubt;
  #size: number;

  constructor(dataDirectory: string, fileName = 'outbox.db') {
    mkdirSync(dataDirectory, { recursive: true });
    this.#database = new Database(path.join(dataDirectory, fileName));
    this.#database.pragma('journal_mode = WAL');
    // FULL: an event handed to the outbox must survive a power loss, not only a process crash.
    this.#database.pragma('synchronous = FULL');
    this.#database.exec(
      `CREATE TABLE IF NOT EXISTS outbox (
        sequence INTEGER PRIMARY KEY AUTOINCREMENT, payload TEXT NOT NULL, doubt INTEGER NOT NULL DEFAULT 0)`,
    );
    const columns = this.#database.prepare('PRAGMA table_info(outbox)').all() as Array<{ name: string }>;
    if (!columns.some((column) => column.name === 'doubt')) {
      // A file written without the column: whether its rows were sent is not known, so all are in doubt.
      this.#database.exec(
        'ALTER TABLE outbox ADD COLUMN doubt INTEGER NOT NULL DEFAULT 0; UPDATE outbox SET doubt = 1',
      );
    }
    const insert = this.#database.prepare('INSERT INTO outbox (payload, doubt) VALUES (?, ?)');
    this.#insert = this.#database.transaction((events: readonly GatewayEvent[], doubt: number) => {
      for (const event of events) insert.run(JSON.stringify(event), doubt);
    });
    this.#take = this.#database.prepare('SELECT sequence, payload, doubt FROM outbox ORDER BY sequence LIMIT ?');
    this.#remove = this.#database.prepare('DELETE FROM outbox WHERE sequence <= ?');
    this.#doubt = this.#database.prepare('UPDATE outbox SET doubt = 1 WHERE sequence <= ? AND doubt = 0');
    this.#count = this.#database.prepare('SELECT count(*) FROM outbox').pluck();
    this.#size = this.#count.get() as number;
  }

  /** Events waiting to be sent. */
  get size(): number {
    return this.#size;
  }

  /** @param inDoubt whether a send of these events may have reached Kafka (it failed without an answer) */
  add(events: readonly GatewayEvent[], inDoubt = false): void {
    this.#insert(events, inDoubt ? 1 : 0);
    this.#size += events.length;
  }

  /** The oldest events, which of them are in doubt, and the sequence to pass to `remove` once they are sent. */
  peek(limit: number): { events: GatewayEvent[]; inDoubt: boolean[]; through: number } {
    const rows = this.#take.all(limit) as Array<{ sequence: number; payload: string; doubt: number }>;
    return {
      events: rows.map((row) => JSON.parse(row.payload) as GatewayEvent),
      inDoubt: rows.map((row) => row.doubt === 1),
      through: rows.at(-1)?.sequence ?? 0,
    };
  }

  /** Puts the rows up to `through` in doubt: called before they are sent, durably. */
  markInDoubt(through: number): void {
    this.#doubt.run(through);
  }

  remove(through: number): void {
    this.#remove.run(through);
    this.#size = this.#count.get() as number;
  }

  close(): void {
    this.#database.close();
  }
}
