/**
 * A log of one event per request (`request.completed` version 2 carrying its usage) projects to the
 * same tables as the same traffic logged as two events per request, as releases before it wrote: the
 * request rows, the four rollups, the keys' usage and the spend, after a replay of the whole log too.
 * Stores upgraded in place hold both shapes, and their projections must not tell them apart.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { GatewayEvent } from '../../contracts/events/index.ts';
import { generatedTraffic } from '../../test/support/generated-traffic.ts';
import { MemoryLookups } from '../memory-lookups.ts';
import { openDatabase, type SqliteDatabase } from './database.ts';
import { SqliteProjectionWriter } from './projection-writer.ts';
import { usageRollups } from './usage-rollups.ts';

const start = Date.parse('2025-06-01T05:17:00.000Z');
const span = 3 * 24 * 3_600_000;
const directories: string[] = [];
const databases: SqliteDatabase[] = [];

afterAll(() => {
  for (const database of databases) database.close();
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

/** Projects `events` in batches of `batchSize`, twice (a replay after a lost checkpoint). */
function projected(events: GatewayEvent[], batchSize: number): SqliteDatabase {
  const directory = mkdtempSync(path.join(tmpdir(), 'one-event-'));
  directories.push(directory);
  const database = openDatabase(directory);
  databases.push(database);
  const writer = new SqliteProjectionWriter(database, new MemoryLookups());
  let position = 0;
  for (const round of [0, 1]) {
    for (let first = 0; first < events.length; first += batchSize) {
      writer.apply(events.slice(first, first + batchSize).map((event) => ({ position: ++position, event })));
    }
    expect(round === 0 || position === 2 * events.length).toBe(true);
  }
  return database;
}

/**
 * A latency sum's last bits depend on the order its values were added in, which the batches' bounds
 * move (a log of fewer events cuts them elsewhere): sums are compared to twelve digits.
 */
const comparable = (value: unknown) =>
  typeof value === 'number' && !Number.isInteger(value) ? Number(value.toPrecision(12)) : value;

/** Every projected table's rows, in a stable order (the checkpoint and the log differ by design). */
function tables(database: SqliteDatabase): Record<string, unknown[]> {
  const names = ['requests', 'token_usage', 'spend', 'documents', ...usageRollups.map((table) => table.name)];
  return Object.fromEntries(
    names.map((name) => {
      const rows = database.prepare(`SELECT * FROM ${name}`).raw().all() as unknown[][];
      return [name, rows.map((row) => JSON.stringify(row.map(comparable))).sort()];
    }),
  );
}

describe('one event per request in the embedded projection', () => {
  const pairs = generatedTraffic(2_000, start, span, 11);
  const merged = generatedTraffic(2_000, start, span, 11, true);

  it('logs fewer events for the same traffic', () => {
    expect(merged.length).toBeLessThan(pairs.length * 0.6);
    expect(merged.filter((event) => event.type === 'usage.recorded')).toEqual([]);
  });

  it.each([1, 37, 500])('projects to the same tables as two events per request (batches of %i)', (batchSize) => {
    const fromPairs = tables(projected(pairs, batchSize));
    const fromMerged = tables(projected(merged, batchSize));
    expect((fromPairs['requests'] ?? []).length).toBeGreaterThan(1_900);
    expect((fromPairs['spend'] ?? []).length).toBeGreaterThan(0);
    expect(fromMerged).toEqual(fromPairs);
  });

  it('projects a log holding both shapes, one after the other, as either alone', () => {
    const half = Math.floor(pairs.length / 2);
    const oldRequests = new Set(pairs.slice(0, half).map((event) => event.body['requestId' as never]));
    const upgraded = [
      ...pairs.slice(0, half),
      ...merged.filter((event) => !oldRequests.has(event.body['requestId' as never])),
    ];
    expect(tables(projected(upgraded, 100))).toEqual(tables(projected(pairs, 100)));
  });
});
