/**
 * The event log hands the projector the events it has just appended from memory. Whatever path a
 * read takes (memory, the table, or a mix after a gap), it must return exactly what reading the
 * table returns: a second log on the same file, which has no memory of the appends, is the reference.
 * A file written before the log stored batches (a table `events`, one row per event) keeps every
 * event at its position, so the projection checkpoint still points at the same event.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GatewayEvent } from '../../contracts/events/index.ts';
import { newEvent } from '../../gateway/events/new-event.ts';
import { openDatabase, type SqliteDatabase } from './database.ts';
import { SqliteEventLog } from './event-log.ts';

function registered(index: number): GatewayEvent {
  return newEvent('user.registered', {
    userId: `user-${index}`,
    email: `user-${index}@example.com`,
    name: `User ${index}`,
    passwordHash: 'scrypt$hash',
    role: 'user',
  });
}

/** An append of one serialised batch. */
const printed = (events: readonly GatewayEvent[]) => [JSON.stringify(events)];

describe('event log reads after appends', () => {
  let directory: string;
  let database: SqliteDatabase;

  beforeEach(() => {
    directory = mkdtempSync(path.join(tmpdir(), 'event-log-'));
    database = openDatabase(directory);
  });
  afterEach(() => {
    database.close();
    rmSync(directory, { recursive: true, force: true });
  });

  const fromTable = (position: number, limit: number) => new SqliteEventLog(database).readAfter(position, limit);

  it('serves just-appended events in log order, the same as the table, in batches', () => {
    const log = new SqliteEventLog(database);
    const events = Array.from({ length: 7 }, (_, index) => registered(index));
    log.appendPrinted(printed(events.slice(0, 4)));
    log.append(events.slice(4));
    const first = log.readAfter(0, 3);
    expect(first).toEqual(fromTable(0, 3));
    expect(first.map((entry) => entry.event.eventId)).toEqual(events.slice(0, 3).map((event) => event.eventId));
    expect(log.readAfter(3, 100)).toEqual(fromTable(3, 100));
    expect(log.readAfter(7, 100)).toEqual([]);
  });

  it('leaves out a retried append, which the table holds once', () => {
    const log = new SqliteEventLog(database);
    const events = [registered(1), registered(2)];
    log.appendPrinted(printed(events));
    log.appendPrinted(printed([events[1]!, registered(3)]));
    const read = log.readAfter(0, 100);
    expect(read).toEqual(fromTable(0, 100));
    expect(read).toHaveLength(3);
  });

  it('reads the table when the projector is behind what memory holds, then memory again', () => {
    const log = new SqliteEventLog(database);
    // Appended by another log (an earlier run): not in this log's memory.
    new SqliteEventLog(database).append([registered(1), registered(2)]);
    log.append([registered(3), registered(4)]);
    expect(log.readAfter(0, 1)).toEqual(fromTable(0, 1));
    expect(log.readAfter(1, 100)).toEqual(fromTable(1, 100));
    log.append([registered(5)]);
    expect(log.readAfter(4, 100)).toEqual(fromTable(4, 100));
  });

  it('forgets memory the projector has passed (a rebuild from position 0 still reads everything)', () => {
    const log = new SqliteEventLog(database);
    log.append([registered(1), registered(2), registered(3)]);
    expect(log.readAfter(0, 100)).toHaveLength(3);
    expect(log.readAfter(0, 100)).toEqual(fromTable(0, 100));
    expect(log.readAfter(3, 100)).toEqual([]);
  });

  it('reads from inside a batch, and cuts a batch at the limit, the same from memory and from the table', () => {
    const log = new SqliteEventLog(database);
    const events = Array.from({ length: 9 }, (_, index) => registered(index));
    log.append(events.slice(0, 5));
    log.appendPrinted(printed(events.slice(5)));
    const fromMemory = log.readAfter(2, 4);
    expect(fromMemory).toEqual(fromTable(2, 4));
    expect(fromMemory.map((entry) => entry.position)).toEqual([3, 4, 5, 6]);
    expect(fromMemory.map((entry) => entry.event.eventId)).toEqual(events.slice(2, 6).map((event) => event.eventId));
    expect(fromTable(6, 100).map((entry) => entry.event.eventId)).toEqual(
      events.slice(6).map((event) => event.eventId),
    );
    expect(new SqliteEventLog(database).lastPosition()).toBe(9);
    expect(new SqliteEventLog(database).count()).toBe(9);
  });

  it('stores a retried batch without the events already logged, at the next positions', () => {
    const log = new SqliteEventLog(database);
    const [first, second, third] = [registered(1), registered(2), registered(3)];
    log.append([first!, second!]);
    log.appendPrinted(printed([second!, third!, third!]));
    expect(fromTable(0, 100).map((entry) => [entry.position, entry.event.eventId])).toEqual([
      [1, first!.eventId],
      [2, second!.eventId],
      [3, third!.eventId],
    ]);
    log.appendPrinted(printed([first!]));
    expect(log.lastPosition()).toBe(3);
  });

  it('leaves out a retry after the worker restarted, which finds the newest ids in the file', () => {
    const events = [registered(1), registered(2), registered(3)];
    new SqliteEventLog(database).appendPrinted(printed(events.slice(0, 2)));
    // A new worker on the same file: the publisher retries the batch whose reply it never had.
    const restarted = new SqliteEventLog(database);
    restarted.appendPrinted(printed(events));
    expect(fromTable(0, 100).map((entry) => entry.event.eventId)).toEqual(events.map((event) => event.eventId));
  });

  it('stores a retried append whose first attempt failed, once', () => {
    const log = new SqliteEventLog(database);
    const events = [registered(1), registered(2)];
    database.exec(
      "CREATE TEMP TRIGGER full_disk BEFORE INSERT ON event_batches BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END",
    );
    expect(() => log.appendPrinted(printed(events))).toThrow(/disk is full/);
    database.exec('DROP TRIGGER full_disk');
    log.appendPrinted(printed(events));
    log.appendPrinted(printed(events));
    expect(fromTable(0, 100).map((entry) => entry.event.eventId)).toEqual(events.map((event) => event.eventId));
  });

  it('shows one row per event in the view `events`, by position, id and type', () => {
    const log = new SqliteEventLog(database);
    const events = [registered(1), registered(2), registered(3)];
    log.append(events.slice(0, 2));
    log.append(events.slice(2));
    const rows = database
      .prepare('SELECT position, event_id, stream, type, payload FROM events ORDER BY position')
      .all();
    expect(rows).toEqual(
      events.map((event, index) => ({
        position: index + 1,
        event_id: event.eventId,
        stream: 'entity',
        type: 'user.registered',
        payload: JSON.stringify(event),
      })),
    );
  });

  it('refuses an append that is not a JSON array of events, and stores nothing', () => {
    const log = new SqliteEventLog(database);
    expect(() => log.appendPrinted([JSON.stringify(registered(1))])).toThrow(/JSON array/);
    expect(() => log.appendPrinted(['[{"eventId":'])).toThrow(/JSON/);
    // One bad batch refuses the whole append, the good batch before it included.
    expect(() => log.appendPrinted([...printed([registered(1)]), 'null'])).toThrow(/JSON array/);
    expect(log.lastPosition()).toBe(0);
  });

  it('stores several batches of one append as batches of their own, in order, in one transaction', () => {
    const log = new SqliteEventLog(database);
    const events = Array.from({ length: 5 }, (_, index) => registered(index));
    log.appendPrinted([
      JSON.stringify(events.slice(0, 2)),
      '[]',
      JSON.stringify([events[2]!, events[1]!]),
      JSON.stringify(events.slice(3)),
    ]);
    const batches = database.prepare('SELECT first_position, event_count FROM event_batches ORDER BY 1').all();
    // The retried event in the third batch is left out, and that batch stored without it.
    expect(batches).toEqual([
      { first_position: 1, event_count: 2 },
      { first_position: 3, event_count: 1 },
      { first_position: 4, event_count: 2 },
    ]);
    expect(fromTable(0, 100).map((entry) => entry.event.eventId)).toEqual(events.map((event) => event.eventId));
    expect(log.readAfter(0, 100)).toEqual(fromTable(0, 100));
  });

  it('stores none of an append whose second batch fails', () => {
    const log = new SqliteEventLog(database);
    const events = [registered(1), registered(2)];
    database.exec(
      "CREATE TEMP TRIGGER full_disk BEFORE INSERT ON event_batches WHEN NEW.first_position > 1 BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END",
    );
    expect(() => log.appendPrinted([...printed([events[0]!]), ...printed([events[1]!])])).toThrow(/disk is full/);
    database.exec('DROP TRIGGER full_disk');
    expect(log.lastPosition()).toBe(0);
    log.appendPrinted([...printed([events[0]!]), ...printed([events[1]!])]);
    expect(fromTable(0, 100).map((entry) => entry.event.eventId)).toEqual(events.map((event) => event.eventId));
  });
});

/** The log's table as the earlier releases created it. */
const legacySchema = `
CREATE TABLE events (
  position INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id TEXT NOT NULL UNIQUE,
  stream TEXT NOT NULL,
  type TEXT NOT NULL,
  version INTEGER NOT NULL,
  partition_key TEXT NOT NULL,
  occurred_at TEXT NOT NULL,
  payload TEXT NOT NULL
);`;

describe('event log of an earlier release', () => {
  let directory: string;

  beforeEach(() => {
    directory = mkdtempSync(path.join(tmpdir(), 'event-log-legacy-'));
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it('becomes batches of one at the same positions, and appends go on after them', () => {
    const old = [registered(1), registered(2), registered(3)];
    const legacy = new Database(path.join(directory, 'gateway.db'));
    legacy.exec(legacySchema);
    const insert = legacy.prepare(
      'INSERT INTO events (position, event_id, stream, type, version, partition_key, occurred_at, payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    // Positions 1, 2 and 5: the positions are kept as they were, gaps included.
    for (const [index, event] of old.entries()) {
      insert.run(
        [1, 2, 5][index],
        event.eventId,
        'entity',
        event.type,
        1,
        'x',
        event.occurredAt,
        JSON.stringify(event),
      );
    }
    legacy.close();

    const database = openDatabase(directory);
    try {
      const log = new SqliteEventLog(database);
      expect(log.readAfter(0, 100).map((entry) => [entry.position, entry.event])).toEqual([
        [1, old[0]],
        [2, old[1]],
        [5, old[2]],
      ]);
      expect(log.readAfter(2, 100).map((entry) => entry.position)).toEqual([5]);
      const next = registered(4);
      log.append([old[1]!, next]);
      expect(log.readAfter(5, 100)).toEqual([{ position: 6, event: next }]);
      expect(database.prepare('SELECT position, type FROM events ORDER BY position').all()).toEqual(
        [1, 2, 5, 6].map((position) => ({ position, type: 'user.registered' })),
      );
    } finally {
      database.close();
    }
    // Opening the file again finds nothing left to migrate.
    const again = openDatabase(directory);
    expect(new SqliteEventLog(again).count()).toBe(4);
    again.close();
  });

  it('drops the table of every event id that earlier releases kept, and still leaves out a retry', () => {
    const database = openDatabase(directory);
    const logged = [registered(1), registered(2)];
    new SqliteEventLog(database).append(logged);
    database.exec('CREATE TABLE event_ids (event_id TEXT PRIMARY KEY) WITHOUT ROWID');
    database.close();
    const reopened = openDatabase(directory);
    try {
      expect(reopened.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'event_ids'").pluck().get()).toBe(0);
      const log = new SqliteEventLog(reopened);
      log.append([logged[1]!, registered(3)]);
      expect(log.count()).toBe(3);
    } finally {
      reopened.close();
    }
  });
});
