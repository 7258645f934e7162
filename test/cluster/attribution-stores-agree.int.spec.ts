/**
 * Attribution on both stores: the same attributed traffic written into the embedded SQLite projection
 * and into a real ClickHouse gives the same `by_group` for every grouping and scope, the same sessions
 * (listed either way, in pages, and one by one) and the same usage-log matches for every attribution
 * filter. The attribution queries of docs/analytics.md run as the read-only `analyst` user and answer
 * what the events say. Values with quotes, backslashes, tabs and non-ASCII text cross both stores whole.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type ClickHouseClient, createClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestAttribution } from '../../contracts/attribution.ts';
import { groupingOf } from '../../contracts/console-api.ts';
import type { GatewayEvent } from '../../contracts/events/index.ts';
import { trafficFacts } from '../../contracts/events/traffic-facts.ts';
import { ClickHouseUsageQueries } from '../../stores/cluster/clickhouse-usage-queries.ts';
import { ClickHouseUsageWriter } from '../../stores/cluster/clickhouse-usage-writer.ts';
import { migrateClickHouse } from '../../stores/cluster/connections.ts';
import { openDatabase, type SqliteDatabase } from '../../stores/embedded/database.ts';
import { SqliteProjectionWriter } from '../../stores/embedded/projection-writer.ts';
import { SqliteUsageQueries } from '../../stores/embedded/usage-queries.ts';
import { MemoryLookups } from '../../stores/memory-lookups.ts';
import { generatedTraffic, SeededRandom } from '../support/generated-traffic.ts';
import { type ClusterServices, resolveClusterServices } from './cluster-services.ts';

const services: ClusterServices | null = resolveClusterServices();
const database = `attribution${Date.now().toString(36)}`;
const HOUR = 3_600_000;
const now = Date.now();
const start = now - 3 * HOUR;
const END_USERS = ['alice', 'bob', "o'neil \\ tab\there", '用户七', undefined];
const FEATURES = ['search', 'chat', 'quote\'s "x"', undefined];
const SESSIONS = ['s-1', 's-2', 's-3', 's-4', 's-5', 's-6', undefined, undefined];

/** The attribution of a request, the same for every copy of its event (the log repeats some). */
function attributionOf(requestId: string): RequestAttribution | undefined {
  const random = new SeededRandom(createHash('sha256').update(requestId).digest().readInt32LE(0));
  const attribution: RequestAttribution = {};
  const endUser = END_USERS[random.below(END_USERS.length)];
  const feature = FEATURES[random.below(FEATURES.length)];
  const sessionId = SESSIONS[random.below(SESSIONS.length)];
  if (endUser) attribution.endUser = endUser;
  if (sessionId) attribution.sessionId = sessionId;
  const metadata: Record<string, string> = {};
  if (feature) metadata['feature'] = feature;
  if (random.next() < 0.5) metadata['env'] = random.next() < 0.5 ? 'prod' : 'staging';
  if (Object.keys(metadata).length > 0) attribution.metadata = metadata;
  return Object.keys(attribution).length > 0 ? attribution : undefined;
}

const events: GatewayEvent[] = generatedTraffic(900, start, 3 * HOUR - 60_000, 17, true).map((event) => {
  if (event.type !== 'request.completed' || event.body.userId === null) return event;
  const attribution = attributionOf(event.body.requestId);
  return attribution ? { ...event, body: { ...event.body, attribution } } : event;
});

let client: ClickHouseClient;
let cluster: ClickHouseUsageQueries;
let directory: string;
let sqlite: SqliteDatabase;
let embedded: SqliteUsageQueries;

describe.skipIf(services === null)('attribution on the embedded store and ClickHouse', () => {
  beforeAll(async () => {
    directory = mkdtempSync(path.join(tmpdir(), 'attribution-agree-'));
    sqlite = openDatabase(directory);
    new SqliteProjectionWriter(sqlite, new MemoryLookups()).apply(
      events.map((event, index) => ({ position: index + 1, event })),
    );
    embedded = new SqliteUsageQueries(sqlite);
    client = createClient({ url: services!.clickhouseUrl });
    await migrateClickHouse(client, database);
    const writer = new ClickHouseUsageWriter(client, database);
    // As the cluster projector hands them over: each request's usage as a fact of its own.
    const facts = trafficFacts(events);
    for (let index = 0; index < facts.length; index += 300) await writer.write(facts.slice(index, index + 300));
    cluster = new ClickHouseUsageQueries(client, database);
  });

  afterAll(async () => {
    sqlite?.close();
    rmSync(directory, { recursive: true, force: true });
    await client?.command({ query: `DROP DATABASE IF EXISTS ${database}` });
    await client?.close();
  });

  const hours = { fromMs: start - (start % HOUR), toMs: Math.ceil(now / HOUR) * HOUR };
  const scopes = {
    'every user': { userId: null },
    'one user': { userId: 'user-2' },
    'one user and model': { userId: 'user-3', model: 'gpt-4o-mini' },
    'one key': { userId: 'user-1', tokenId: 'token-1-1' },
  };
  for (const groupBy of ['end_user', 'session', 'metadata.feature', 'metadata.env', 'metadata.absent']) {
    for (const [scope, filters] of Object.entries(scopes)) {
      it(`groups the same by ${groupBy}: ${scope}`, async () => {
        const query = { ...hours, ...filters, grouping: groupingOf(groupBy) };
        const [left, right] = await Promise.all([embedded.groups(query), cluster.groups(query)]);
        expect(left.length).toBeGreaterThan(0);
        expect(right).toEqual(left);
      });
    }
  }

  it('finds the awkward values whole in both stores', async () => {
    const query = { ...hours, userId: null, grouping: groupingOf('end_user') };
    const groups = (await cluster.groups(query)).map((row) => row.group);
    expect(groups).toEqual(expect.arrayContaining(["o'neil \\ tab\there", '用户七', null]));
    const features = (await cluster.groups({ ...query, grouping: groupingOf('metadata.feature') })).map(
      (row) => row.group,
    );
    expect(features).toContain('quote\'s "x"');
  });

  it('lists the same sessions, latest first and most expensive first, in the same pages', async () => {
    for (const sort of ['recent', 'cost'] as const) {
      for (const userId of [null, 'user-4']) {
        for (const offset of [0, 2, 4]) {
          const query = { sort, userId, limit: 2, offset };
          const [left, right] = await Promise.all([embedded.sessions(query), cluster.sessions(query)]);
          expect(right).toEqual(left);
        }
        const whole = await embedded.sessions({ sort, userId });
        expect(whole.items.length).toBe(6);
      }
    }
  });

  it('gives the same session, request by request, to its owner and to an administrator', async () => {
    for (const sessionId of ['s-1', 's-4', 'none']) {
      for (const userId of [null, 'user-0', 'user-5']) {
        const [left, right] = await Promise.all([
          embedded.session(sessionId, userId),
          cluster.session(sessionId, userId),
        ]);
        expect(right).toEqual(left);
        if (sessionId !== 'none' && userId === null) expect(left!.requests.length).toBeGreaterThan(10);
      }
    }
  });

  const filters = {
    'an end user': { end_user: "o'neil \\ tab\there" },
    'a session': { session_id: 's-2' },
    'a metadata value': { metadata: { feature: 'quote\'s "x"' } },
    'two metadata values and an end user': { metadata: { feature: 'chat', env: 'prod' }, end_user: 'alice' },
  };
  for (const [name, filter] of Object.entries(filters)) {
    it(`matches the same usage-log rows by ${name}`, async () => {
      const query = { ...filter, userId: null, limit: 500 };
      const [left, right] = await Promise.all([embedded.logs(query), cluster.logs(query)]);
      const attributed = (page: typeof left) =>
        page.items.map((item) => [item.request_id, item.end_user, item.session_id, item.metadata]);
      expect(left.total).toBeGreaterThan(0);
      expect(right.total).toBe(left.total);
      expect(attributed(right)).toEqual(attributed(left));
    });
  }

  describe('the attribution queries of docs/analytics.md, as the analyst user', () => {
    const documentation = readFileSync(new URL('../../docs/analytics.md', import.meta.url), 'utf8');
    const documented = (heading: string) => {
      const at = documentation.indexOf(heading);
      if (at < 0) throw new Error(`docs/analytics.md has no "${heading}"`);
      return /```sql\n([\s\S]*?)```/.exec(documentation.slice(at))![1]!.replaceAll('gateway.', `${database}.`);
    };
    const asAnalyst = async (sql: string) => {
      const analyst = createClient({
        url: services!.clickhouseUrl,
        username: 'analyst',
        password: process.env['ANALYST_PASSWORD'] ?? 'analyst',
      });
      try {
        return (await (await analyst.query({ query: sql, format: 'JSONEachRow' })).json()) as Array<
          Record<string, unknown>
        >;
      } finally {
        await analyst.close();
      }
    };
    /** The stores' groups of the whole traffic, by grouping, as name → [calls, cost in nano-dollars]. */
    const storeGroups = async (groupBy: string, fromMs = 0) => {
      const groups = await embedded.groups({ fromMs, toMs: hours.toMs, userId: null, grouping: groupingOf(groupBy) });
      return new Map(groups.map((row) => [row.group ?? '', [row.calls, Math.round(row.cost_usd * 1e9)]]));
    };

    it('cost per end user this month', async () => {
      const rows = await asAnalyst(documented('### Cost per end user this month'));
      const monthStart = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), 1);
      const expected = await storeGroups('end_user', monthStart);
      expected.delete('');
      expect(rows.length).toBe(expected.size);
      expect(
        new Map(rows.map((row) => [row['end_user'], [Number(row['requests']), Number(row['spend_nano_usd'])]])),
      ).toEqual(expected);
    });

    it('cost per feature tag', async () => {
      const rows = await asAnalyst(documented('### Cost per feature tag, last 30 days'));
      expect(
        new Map(rows.map((row) => [row['feature'], [Number(row['requests']), Number(row['spend_nano_usd'])]])),
      ).toEqual(await storeGroups('metadata.feature'));
    });

    it('spend by every metadata key and value', async () => {
      const rows = await asAnalyst(documented('### Spend by every metadata key and value, last 7 days'));
      const env = await storeGroups('metadata.env');
      env.delete('');
      const answered = rows.filter((row) => row['key'] === 'env');
      expect(
        new Map(answered.map((row) => [row['value'], [Number(row['requests']), Number(row['spend_nano_usd'])]])),
      ).toEqual(env);
    });

    it('the most expensive sessions', async () => {
      const rows = await asAnalyst(documented('### The most expensive sessions of the last 7 days'));
      const sessions = (await embedded.sessions({ sort: 'cost', userId: null })).items;
      expect(rows.map((row) => [row['session_id'], Number(row['requests']), Number(row['errors'])])).toEqual(
        sessions.map((session) => [session.session_id, session.calls, session.errors]),
      );
      expect(rows.map((row) => Number(row['spend_nano_usd']))).toEqual(
        sessions.map((session) => Math.round(session.cost_usd * 1e9)),
      );
    });

    it('refuses the analyst a write', async () => {
      await expect(asAnalyst(`CREATE TABLE ${database}.intruder (a UInt8) ENGINE = Memory`)).rejects.toThrow(
        /readonly/i,
      );
    });
  });
});
