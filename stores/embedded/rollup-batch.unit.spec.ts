import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { GatewayEvent } from '../../contracts/events/index.ts';
import { newEvent } from '../../gateway/events/new-event.ts';
import { MemoryLookups } from '../memory-lookups.ts';
import { openDatabase, type SqliteDatabase } from './database.ts';
import { SqliteProjectionWriter } from './projection-writer.ts';
import { usageRollups } from './usage-rollups.ts';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function openWriter(): { database: SqliteDatabase; writer: SqliteProjectionWriter } {
  const directory = mkdtempSync(path.join(tmpdir(), 'rollup-batch-'));
  directories.push(directory);
  const database = openDatabase(directory);
  return { database, writer: new SqliteProjectionWriter(database, new MemoryLookups()) };
}

/** Requests over two keys, three models, two channels, two hours and two days, with their usage. */
function traffic(): GatewayEvent[] {
  const events: GatewayEvent[] = [];
  const starts = ['2026-03-31T23:10:00.000Z', '2026-04-01T00:20:00.000Z', '2026-04-01T01:30:00.000Z'];
  for (let index = 0; index < 60; index++) {
    const requestId = `r${index}`;
    const tokenId = index % 2 === 0 ? 't1' : 't2';
    const model = ['gpt-4o-mini', 'gpt-4o', 'claude-sonnet-4-5'][index % 3]!;
    const channelId = index % 5 === 0 ? 'c2' : 'c1';
    const startedAt = starts[Math.floor(index / 3) % starts.length]!;
    events.push(
      newEvent('request.completed', {
        requestId,
        userId: 'u1',
        tokenId,
        endpoint: 'chat.completions',
        modelRequested: model,
        modelServed: model,
        channelId,
        stream: false,
        status: index % 7 === 0 ? 502 : 200,
        errorType: index % 7 === 0 ? 'upstream_error' : null,
        errorMessage: null,
        startedAt,
        latencyMs: 1 + index * 13.7,
        firstTokenMs: null,
        clientAborted: false,
      }),
    );
    if (index % 7 === 0) continue;
    events.push(
      newEvent('usage.recorded', {
        requestId,
        userId: 'u1',
        tokenId,
        channelId,
        model,
        startedAt,
        promptTokens: 10 + index,
        completionTokens: 2 * index,
        cachedTokens: index % 3,
        cacheWriteTokens: 0,
        reasoningTokens: index % 4,
        source: 'upstream',
        costNanoUsd: index % 6 === 0 ? null : 1_000 + index,
        price: null,
      }),
    );
  }
  return events;
}

/** Every rollup row; latency sums (the one real measure) to the nanosecond, as added in another order. */
function rollupRows(database: SqliteDatabase): Record<string, unknown[]> {
  return Object.fromEntries(
    usageRollups.map((table) => [
      table.name,
      (
        database.prepare(`SELECT * FROM ${table.name} ORDER BY ${table.dimensions.join(', ')}`).all() as Array<
          Record<string, unknown>
        >
      ).map((row) => ({ ...row, latency_ms_sum: Number((row.latency_ms_sum as number).toFixed(6)) })),
    ]),
  );
}

describe('embedded rollups, summed per batch', () => {
  it('come out the same whether a batch holds every event or each event is a batch of its own', () => {
    const events = traffic();
    const whole = openWriter();
    whole.writer.apply(events.map((event, index) => ({ position: index + 1, event })));
    const single = openWriter();
    for (const [index, event] of events.entries()) single.writer.apply([{ position: index + 1, event }]);

    const rows = rollupRows(whole.database);
    // Coordinates that share a coarser table's row (two keys, three models in one day) all reached it.
    const modelDaily = rows.usage_model_daily as Array<{ calls: number }>;
    expect(modelDaily.reduce((sum, row) => sum + row.calls, 0)).toBe(60);
    expect(modelDaily.length).toBe(6);
    expect(rows).toEqual(rollupRows(single.database));
    whole.database.close();
    single.database.close();
  });
});
