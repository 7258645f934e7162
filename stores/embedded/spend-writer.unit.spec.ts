import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { newEvent } from '../../gateway/events/new-event.ts';
import { MemoryLookups } from '../memory-lookups.ts';
import { openDatabase } from './database.ts';
import { SqliteProjectionWriter } from './projection-writer.ts';

function usage(requestId: string, startedAt: string, costNanoUsd: number | null) {
  return newEvent('usage.recorded', {
    requestId,
    userId: 'u1',
    tokenId: 't1',
    channelId: 'c1',
    model: 'gpt-4o-mini',
    startedAt,
    promptTokens: 10,
    completionTokens: 5,
    cachedTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    source: 'upstream',
    costNanoUsd,
    price: null,
  });
}

describe('embedded spend projection', () => {
  it('counts each cost once, and gives a file written before spend existed its spend at open', () => {
    const database = openDatabase(mkdtempSync(path.join(tmpdir(), 'spend-')));
    const lookups = new MemoryLookups();
    const writer = new SqliteProjectionWriter(database, lookups);
    const events = [
      usage('r1', '2026-03-31T23:00:00.000Z', 300),
      usage('r2', '2026-04-01T01:00:00.000Z', 20),
      usage('r3', '2026-04-01T02:00:00.000Z', null),
    ];
    writer.apply(events.map((event, index) => ({ position: index + 1, event })));
    // A redelivered usage event (the same request) is not counted again.
    writer.apply([{ position: 4, event: { ...events[1]!, eventId: 'another-delivery' } }]);
    const projected = lookups.spend('token:t1');
    expect(projected?.total.nanoUsd).toBe(320);
    expect(projected?.monthly).toEqual({ start: '2026-04', nanoUsd: 20 });
    expect(lookups.spend('user:u1')).toEqual(projected);

    // As a file from before the spend projection: no counters, no migration recorded.
    database.exec("DELETE FROM spend; DELETE FROM projection_migrations WHERE name = 'spend-from-recorded-costs'");
    const reopened = new MemoryLookups();
    new SqliteProjectionWriter(database, reopened).loadLookups();
    expect(reopened.spend('token:t1')).toEqual(projected);
    expect(reopened.spend('user:u1')).toEqual(projected);
    database.close();
  });
});
