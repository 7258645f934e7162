/**
 * A file written before the log stored batches holds a table `events` with one row per event. Opening
 * it must keep every event at its position (the projection checkpoint points at one), keep appends
 * idempotent for the ids it already holds, and go on at the next position.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GatewayEvent } from '../../contracts/events/index.ts';
import { newEvent } from '../../gateway/events/new-event.ts';
import { openDatabase } from './database.ts';
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
});
