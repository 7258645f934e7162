/**
 * The fast data overview (daily and per-model rollups, histogram percentile) against the reference
 * computation it replaced (hourly rollup and a sort of the raw requests), on generated traffic with
 * replays, for ranges that start and end on and off the hour and the day, every filter and both
 * granularities: every figure number for number, and the 95th percentile in the same histogram
 * bucket as the exact one (so exact below 32 ms, and within 1/16 of it above).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UsageOverview, UsageOverviewQuery } from '../../contracts/console-api.ts';
import { latencyBucketOf } from '../../projector/read-models/usage/latency-histogram.ts';
import { generatedTraffic } from '../../test/support/generated-traffic.ts';
import { referenceOverview } from '../../test/support/reference-overview.ts';
import { MemoryLookups } from '../memory-lookups.ts';
import { openDatabase, type SqliteDatabase } from './database.ts';
import type { PositionedEvent } from './event-log.ts';
import { SqliteProjectionWriter } from './projection-writer.ts';
import { SqliteUsageOverview } from './usage-overview.ts';
import { SqliteUsageQueries } from './usage-queries.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
// Traffic over nine days from 05:17 on the first.
const start = Date.parse('2025-06-01T05:17:00.000Z');
const at = (days: number, hours = 0, minutes = 0) => new Date(start + days * DAY + hours * HOUR + minutes * 60_000);

const ranges: Array<[string, Date, Date]> = [
  ['everything, whole days', new Date('2025-06-01T00:00:00Z'), new Date('2025-06-11T00:00:00Z')],
  ['off the hour at both ends', at(0, 5, 13), at(6, 3, 40)],
  ['within one day', at(2, 1, 0), at(2, 9, 30)],
  ['across one midnight, under a day', at(3, 10, 0), at(4, 6, 0)],
  ['ending on a midnight', at(1, 2, 0), new Date('2025-06-07T00:00:00Z')],
  ['ending in the last hour of a day', new Date('2025-06-02T00:00:00Z'), new Date('2025-06-05T23:30:00Z')],
  ['starting in the last hour of a day', new Date('2025-06-02T23:59:00Z'), new Date('2025-06-06T00:01:00Z')],
  ['one hour', new Date('2025-06-04T12:00:00Z'), new Date('2025-06-04T13:00:00Z')],
  ['after the traffic', new Date('2025-07-01T00:00:00Z'), new Date('2025-07-03T00:00:00Z')],
];

const scopes: Array<Pick<UsageOverviewQuery, 'model' | 'token_id'> & { userId: string | null }> = [
  { userId: null },
  { userId: 'user-1' },
  { userId: 'user-2', model: 'gpt-4o' },
  { userId: null, model: 'claude-sonnet-4-5' },
  { userId: null, token_id: 'token-3-1' },
  { userId: 'user-4', token_id: 'token-4-0' },
  { userId: null, token_id: 'token-0-2', model: 'gpt-4o-mini' },
  { userId: 'user-5', model: 'no-such-model' },
];

let directory: string;
let database: SqliteDatabase;
let queries: SqliteUsageQueries;
let overview: SqliteUsageOverview;

beforeAll(() => {
  directory = mkdtempSync(path.join(tmpdir(), 'usage-overview-'));
  database = openDatabase(directory);
  const writer = new SqliteProjectionWriter(database, new MemoryLookups());
  const events = generatedTraffic(6000, start, 9 * DAY);
  // Uneven batches, so a request's two events sometimes share a batch and sometimes do not.
  const sizes = [1, 7, 250, 1000, 33];
  let position = 0;
  for (let index = 0, size = 0; index < events.length; index += sizes[size++ % sizes.length]!) {
    const batch: PositionedEvent[] = events
      .slice(index, index + sizes[size % sizes.length]!)
      .map((event) => ({ position: ++position, event }));
    writer.apply(batch);
  }
  queries = new SqliteUsageQueries(database);
  overview = new SqliteUsageOverview(database);
});

/** Every figure equal, and the percentile in the exact one's bucket. */
function expectMatches(actual: UsageOverview, reference: UsageOverview, label: string): void {
  const withoutPercentile = (overview: UsageOverview) => ({
    ...overview,
    latency: { ...overview.latency, p95_ms: undefined },
  });
  expect(withoutPercentile(actual), label).toEqual(withoutPercentile(reference));
  const exact = reference.latency?.p95_ms ?? null;
  const found = actual.latency?.p95_ms ?? null;
  if (exact === null) expect(found, label).toBeNull();
  else {
    expect(found, label).not.toBeNull();
    expect(latencyBucketOf(found!), `${label}: ${found} ms for ${exact} ms`).toBe(latencyBucketOf(exact));
  }
}

afterAll(() => {
  database.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('the data overview', () => {
  it('has traffic to compare', async () => {
    const all = await queries.overview({
      from: ranges[0]![1].toISOString(),
      to: ranges[0]![2].toISOString(),
      userId: null,
    });
    expect(all.totals.calls).toBe(6000);
    expect(all.latency?.p95_ms).toBeGreaterThan(0);
    expect(all.by_token).toHaveLength(10);
  });

  for (const [name, from, to] of ranges) {
    it(`matches the reference: ${name}`, async () => {
      for (const scope of scopes) {
        for (const granularity of [undefined, 'hour', 'day'] as const) {
          const query = {
            from: from.toISOString(),
            to: to.toISOString(),
            ...scope,
            ...(granularity && { granularity }),
          };
          expectMatches(overview.overview(query), referenceOverview(database, query), JSON.stringify(query));
        }
      }
    });
  }

  it('matches the reference over a range that starts mid-hour on every hour of a day', async () => {
    for (let hour = 0; hour < 24; hour++) {
      const query = { from: at(1, hour, 29).toISOString(), to: at(5, hour, 31).toISOString(), userId: null };
      expectMatches(overview.overview(query), referenceOverview(database, query), query.from);
      const user = { ...query, userId: 'user-3' };
      expectMatches(overview.overview(user), referenceOverview(database, user), user.from);
    }
  });

  it('found every percentile from the histograms, never by the full sort', () => {
    expect(overview.percentile.fallbacks).toBe(0);
  });

  // Last: it damages the rollups of this file.
  it('still answers the exact percentile when a histogram disagrees with the raw rows', () => {
    database.exec(
      `UPDATE usage_model_daily SET latency_histogram = NULL WHERE day = ${Date.parse('2025-06-03T00:00:00Z')}`,
    );
    const query = { from: ranges[0]![1].toISOString(), to: ranges[0]![2].toISOString(), userId: null };
    expect(overview.overview(query).latency).toEqual(referenceOverview(database, query).latency);
    expect(overview.percentile.fallbacks).toBe(1);
  });
});
