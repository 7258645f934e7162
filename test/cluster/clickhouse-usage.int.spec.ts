/**
 * The ClickHouse usage tables on a real ClickHouse, written by the projector's writer: every rollup
 * (per key, per user × model, all users × model, all users × key) counts each request once when
 * batches are redelivered whole or split differently, written concurrently, or cut short after the
 * raw rows (a projector killed mid-batch); the back-fill builds the all-users rollups of a deployment
 * that predates them; the overview reads the same totals whichever tables answer it; and the usage
 * log pages through every request once, though the raw tables still hold unmerged duplicates.
 */
import { type ClickHouseClient, createClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayEvent } from '../../contracts/events/index.ts';
import { newEvent } from '../../gateway/events/new-event.ts';
import { readOverview } from '../../stores/cluster/clickhouse-overview.ts';
import { trafficRows } from '../../stores/cluster/clickhouse-traffic-rows.ts';
import { tsvRows } from '../../stores/cluster/clickhouse-tsv.ts';
import { ClickHouseUsageQueries } from '../../stores/cluster/clickhouse-usage-queries.ts';
import { ClickHouseUsageWriter, slotsKeptFrom } from '../../stores/cluster/clickhouse-usage-writer.ts';
import { migrateClickHouse } from '../../stores/cluster/connections.ts';
import { type ClusterServices, resolveClusterServices } from './cluster-services.ts';

const services: ClusterServices | null = resolveClusterServices();
const database = `rollups${Date.now().toString(36)}`;
const HOUR = 3_600_000;
const now = Date.now();
const models = ['gpt-4o-mini', 'claude-sonnet-4-5', 'deepseek-chat'];

/** Request `index`: 4 users, 2 keys each, 3 models, over the last 5 hours, every seventh one failed. */
function request(index: number): [GatewayEvent, GatewayEvent] {
  const userId = `user-${index % 4}`;
  const tokenId = `token-${index % 4}-${Math.floor(index / 4) % 2}`;
  const model = models[index % 3]!;
  const startedAt = new Date(now - ((index * 7_919_000) % (5 * HOUR))).toISOString();
  const requestId = `request-${index}`;
  const failed = index % 7 === 0;
  return [
    newEvent('request.completed', {
      requestId,
      userId,
      tokenId,
      endpoint: 'chat.completions',
      modelRequested: model,
      modelServed: model,
      channelId: 'channel-1',
      stream: false,
      status: failed ? 502 : 200,
      errorType: failed ? 'upstream_error' : null,
      errorMessage: null,
      startedAt,
      latencyMs: latencyOf(index),
      firstTokenMs: null,
      clientAborted: false,
    }),
    newEvent('usage.recorded', {
      requestId,
      userId,
      tokenId,
      channelId: 'channel-1',
      model,
      startedAt,
      promptTokens: 10 + index,
      completionTokens: failed ? 0 : 3 + (index % 11),
      cachedTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
      source: 'upstream',
      costNanoUsd: null,
      price: null,
    }),
  ];
}

const latencyOf = (index: number) => 100 + ((index * 37) % 2900);
const requests = 120;
const events = Array.from({ length: requests }, (_, index) => request(index)).flat();
const expectedPrompt = Array.from({ length: requests }, (_, index) => 10 + index).reduce((sum, value) => sum + value);

let client: ClickHouseClient;

async function rows(query: string): Promise<Array<Record<string, string>>> {
  return (await (await client.query({ query, format: 'JSONEachRow' })).json()) as Array<Record<string, string>>;
}

/** Calls and prompt tokens of every rollup, and each all-users rollup beside the per-key one summed the same way. */
async function expectExactRollups(): Promise<void> {
  const db = database;
  const [totals] = await rows(`SELECT
    (SELECT count() FROM ${db}.requests FINAL) AS raw,
    (SELECT sum(calls) FROM ${db}.usage_hourly FINAL) AS keys,
    (SELECT sum(calls) FROM ${db}.usage_hourly_user_models FINAL) AS user_models,
    (SELECT sum(calls) FROM ${db}.usage_hourly_models FINAL) AS models,
    (SELECT sum(calls) FROM ${db}.usage_hourly_tokens FINAL) AS tokens,
    (SELECT sum(prompt_tokens) FROM ${db}.usage_hourly_models FINAL) AS models_prompt,
    (SELECT sum(arraySum(latency_counts)) FROM ${db}.usage_hourly_models FINAL) AS histogram,
    (SELECT sum(calls) FROM ${db}.usage_daily_models FINAL) AS daily_models,
    (SELECT sum(arraySum(latency_counts)) FROM ${db}.usage_daily_models FINAL) AS daily_histogram,
    (SELECT sum(calls) FROM ${db}.usage_daily_tokens FINAL) AS daily_tokens,
    (SELECT sum(prompt_tokens) FROM ${db}.usage_daily_tokens FINAL) AS daily_tokens_prompt`);
  expect(Object.values(totals!).map(Number)).toEqual([
    requests,
    requests,
    requests,
    requests,
    requests,
    expectedPrompt,
    requests,
    requests,
    requests,
    requests,
    expectedPrompt,
  ]);
  // The recent hours' minute slots hold every request of those hours, once.
  const [slots] = await rows(`SELECT
    (SELECT sum(calls) FROM ${db}.usage_slots FINAL) AS slots,
    (SELECT count() FROM ${db}.requests FINAL WHERE started_at >= ${slotsKeptFrom(now)}) AS raw`);
  expect(Number(slots!.slots)).toBeGreaterThan(0);
  expect(slots!.slots).toBe(slots!.raw);
  const byDayToken = `SELECT toUInt32(toStartOfDay(hour)) AS day, token_id, sum(calls) AS calls, sum(prompt_tokens) AS prompt
    FROM ${db}.usage_hourly FINAL GROUP BY day, token_id ORDER BY day, token_id`;
  expect(
    await rows(`SELECT toUInt32(day) AS day, token_id, sum(calls) AS calls, sum(prompt_tokens) AS prompt
      FROM ${db}.usage_daily_tokens FINAL GROUP BY day, token_id ORDER BY day, token_id`),
  ).toEqual(await rows(byDayToken));
  const byModel = `SELECT toUInt32(hour) AS hour, model, sum(calls) AS calls, sum(errors) AS errors,
    sum(prompt_tokens) AS prompt, sum(completion_tokens) AS completion`;
  expect(
    await rows(`${byModel} FROM ${db}.usage_hourly_models FINAL GROUP BY hour, model ORDER BY hour, model`),
  ).toEqual(await rows(`${byModel} FROM ${db}.usage_hourly FINAL GROUP BY hour, model ORDER BY hour, model`));
  const byToken = `SELECT toUInt32(hour) AS hour, token_id, sum(calls) AS calls, sum(prompt_tokens) AS prompt`;
  expect(
    await rows(`${byToken} FROM ${db}.usage_hourly_tokens FINAL GROUP BY hour, token_id ORDER BY hour, token_id`),
  ).toEqual(await rows(`${byToken} FROM ${db}.usage_hourly FINAL GROUP BY hour, token_id ORDER BY hour, token_id`));
}

describe.skipIf(services === null)('ClickHouse usage tables on a real ClickHouse', () => {
  beforeAll(async () => {
    client = createClient({ url: services!.clickhouseUrl });
    await migrateClickHouse(client, database);
  });

  afterAll(async () => {
    await client?.command({ query: `DROP DATABASE IF EXISTS ${database}` });
    await client?.close();
  });

  it('counts each request once, however its batches are redelivered, split or cut short', async () => {
    const writer = new ClickHouseUsageWriter(client, database);
    // A projector killed after the raw rows of a batch: its rollup statements never ran.
    const dying = new Proxy(client, {
      get: (target, name) =>
        name === 'command' ? () => Promise.reject(new Error('killed')) : Reflect.get(target, name, target),
    });
    await expect(new ClickHouseUsageWriter(dying, database).write(events.slice(0, 50))).rejects.toThrow('killed');
    // First delivery: batches of 30 events, two partitions' batches written at once.
    const batches = Array.from({ length: Math.ceil(events.length / 30) }, (_, index) =>
      events.slice(index * 30, index * 30 + 30),
    );
    for (let index = 0; index < batches.length; index += 2)
      await Promise.all(batches.slice(index, index + 2).map((batch) => writer.write(batch)));
    // Redelivered: everything at once, then a slice split differently.
    await writer.write(events);
    await writer.write(events.slice(45, 95));
    // As the projector writes: the rows of several batches, encoded when they were read, at once.
    await writer.writeRows(batches.slice(1, 6).map((batch) => trafficRows(batch)));
    await expectExactRollups();
  });

  it('back-fills the all-users rollups of a deployment that predates them', async () => {
    for (const table of [
      'usage_hourly_user_models',
      'usage_hourly_models',
      'usage_hourly_tokens',
      'usage_daily_models',
      'usage_daily_tokens',
      'rollup_backfills',
    ])
      await client.command({ query: `DROP TABLE ${database}.${table}` });
    await migrateClickHouse(client, database);
    const logged: string[] = [];
    await new ClickHouseUsageWriter(client, database).prepare((message) => logged.push(message));
    expect(logged).toEqual(['rollups back-filled from the raw tables']);
    await expectExactRollups();
    // Once is enough: the next start does nothing.
    await new ClickHouseUsageWriter(client, database).prepare((message) => logged.push(message));
    expect(logged).toHaveLength(1);
  });

  it('back-fills the minute slots of a deployment that predates them, so a late request keeps its hour whole', async () => {
    const before = `${database}_before_slots`;
    await migrateClickHouse(client, before);
    try {
      await new ClickHouseUsageWriter(client, before).write(events);
      // The deployment as it was before the slots: no slot rows, and no record of their back-fill.
      for (const table of ['usage_slots', 'rollup_backfills'])
        await client.command({ query: `DROP TABLE ${before}.${table}` });
      await migrateClickHouse(client, before);
      const logged: string[] = [];
      await new ClickHouseUsageWriter(client, before).prepare((message) => logged.push(message));
      expect(logged).toEqual(['rollups back-filled from the raw tables']);
      // A request arriving late, for user-0 and one of its keys, at the first second of its busiest
      // recent hour (recent hours are summed from their slots).
      const recent = Math.floor(now / HOUR) * 3600 - 2 * 3600;
      const [busiest] = await rows(`SELECT toUInt32(toStartOfHour(started_at)) AS hour, count() AS calls
        FROM ${before}.requests FINAL WHERE user_id = 'user-0' AND started_at >= ${recent}
        GROUP BY hour ORDER BY calls DESC, hour LIMIT 1`);
      expect(Number(busiest!.calls)).toBeGreaterThan(1);
      const startedAt = new Date(Number(busiest!.hour) * 1000).toISOString();
      const [late, lateUsage] = request(0).map((event) => ({
        ...event,
        eventId: `${event.eventId}-late`,
        body: { ...event.body, requestId: 'request-late', startedAt },
      })) as [GatewayEvent, GatewayEvent];
      const hourOfFirst = `SELECT sum(calls) AS calls FROM ${before}.usage_hourly FINAL
        WHERE user_id = 'user-0' AND hour = toDateTime(${Number(busiest!.hour)})`;
      const [{ calls }] = (await rows(hourOfFirst)) as [{ calls: string }];
      await new ClickHouseUsageWriter(client, before).write([late, lateUsage]);
      expect(await rows(hourOfFirst)).toEqual([{ calls: String(Number(calls) + 1) }]);
      expect(await rows(`SELECT sum(calls) AS calls FROM ${before}.usage_hourly_models FINAL`)).toEqual([
        { calls: String(requests + 1) },
      ]);
    } finally {
      await client.command({ query: `DROP DATABASE IF EXISTS ${before}` });
    }
  });

  it('counts exactly across projectors whose clocks differ by an hour, and after an hour stopped being recent', async () => {
    const skewed = `${database}_skewed`;
    await migrateClickHouse(client, skewed);
    const late = (index: number, startedAt: number) =>
      request(index).map(
        (event) =>
          ({
            ...event,
            eventId: `${event.eventId}-late`,
            body: { ...event.body, startedAt: new Date(startedAt).toISOString() },
          }) as GatewayEvent,
      );
    try {
      // A projector whose clock is an hour ahead writes everything; one with the right clock then gets
      // a late request two hours back, an hour it sums from minute slots the first one had to keep.
      await new ClickHouseUsageWriter(client, skewed, () => now + HOUR).write(events);
      const currentHour = Math.floor(now / HOUR) * HOUR;
      await new ClickHouseUsageWriter(client, skewed).write(late(1_000, currentHour - 2 * HOUR + 1_000));
      // Five hours on, a late request of the current hour is summed from the raw rows.
      await new ClickHouseUsageWriter(client, skewed, () => now + 5 * HOUR).write(late(1_001, currentHour + 1_000));
      const [totals] = await rows(`SELECT
        (SELECT sum(calls) FROM ${skewed}.usage_hourly FINAL) AS keys,
        (SELECT sum(calls) FROM ${skewed}.usage_hourly_models FINAL) AS models,
        (SELECT sum(calls) FROM ${skewed}.usage_daily_tokens FINAL) AS daily_tokens`);
      expect(Object.values(totals!).map(Number)).toEqual([requests + 2, requests + 2, requests + 2]);
    } finally {
      await client.command({ query: `DROP DATABASE IF EXISTS ${skewed}` });
    }
  });

  it("adds the caller's request id column to a requests table that predates it, rows kept, with nodes starting at once", async () => {
    const before = await rows(`SELECT count() AS n FROM ${database}.requests`);
    await client.command({ query: `ALTER TABLE ${database}.requests DROP COLUMN client_request_id` });
    // Gateway nodes and the projector migrate as they start: both may find the column missing.
    await Promise.all([migrateClickHouse(client, database), migrateClickHouse(client, database)]);
    await migrateClickHouse(client, database);
    const columns = await rows(
      `SELECT name FROM system.columns WHERE database = '${database}' AND table = 'requests' AND name = 'client_request_id'`,
    );
    expect(columns).toHaveLength(1);
    expect(await rows(`SELECT count() AS n FROM ${database}.requests`)).toEqual(before);
  });

  it("reads a user's 95th percentile from the hourly histograms, and from the raw rows for hours that have none", async () => {
    const range = { from: new Date(now - 6 * HOUR).toISOString(), to: new Date(now + HOUR).toISOString() };
    const exactOf = (user: number) => {
      const latencies = Array.from({ length: requests }, (_, index) => index)
        .filter((index) => index % 4 === user)
        .map(latencyOf)
        .sort((left, right) => left - right);
      return latencies[Math.ceil(0.95 * latencies.length) - 1]!;
    };
    const read = async (db: string) => {
      const queried: string[] = [];
      const rowsOf = async <Row>(query: string) => {
        queried.push(query);
        return (await (await client.query({ query, format: 'JSONEachRow' })).json()) as Row[];
      };
      const textRowsOf = async (query: string) => {
        queried.push(query);
        return tsvRows(await (await client.query({ query, format: 'TabSeparated' })).text());
      };
      const overview = await readOverview(rowsOf, textRowsOf, db, { ...range, userId: 'user-1' });
      return { p95: overview.latency!.p95_ms!, readRaw: queried.some((query) => query.includes(`${db}.requests`)) };
    };
    const withHistograms = await read(database);
    expect(withHistograms.readRaw).toBe(false);
    expect(Math.abs(withHistograms.p95 - exactOf(1)) / exactOf(1)).toBeLessThanOrEqual(0.01);
    // Hours written before the histograms existed: the column is added empty to their rows.
    const older = `${database}_older`;
    await migrateClickHouse(client, older);
    try {
      await new ClickHouseUsageWriter(client, older).write(events);
      for (const column of ['latency_buckets', 'latency_counts'])
        await client.command({ query: `ALTER TABLE ${older}.usage_hourly DROP COLUMN ${column}` });
      await migrateClickHouse(client, older);
      const withoutHistograms = await read(older);
      expect(withoutHistograms.readRaw).toBe(true);
      expect(withoutHistograms.p95).toBe(withHistograms.p95);
    } finally {
      await client.command({ query: `DROP DATABASE IF EXISTS ${older}` });
    }
  });

  it('answers the same overview from the all-users rollups as from the per-key one', async () => {
    const queries = new ClickHouseUsageQueries(client, database);
    const range = { from: new Date(now - 6 * HOUR).toISOString(), to: new Date(now + HOUR).toISOString() };
    const all = await queries.overview({ ...range, userId: null });
    const perUser = await Promise.all(
      [0, 1, 2, 3].map((user) => queries.overview({ ...range, userId: `user-${user}` })),
    );
    expect(all.totals.calls).toBe(requests);
    expect(all.totals.prompt_tokens).toBe(expectedPrompt);
    expect(perUser.reduce((sum, overview) => sum + overview.totals.calls, 0)).toBe(requests);
    expect(perUser.reduce((sum, overview) => sum + overview.totals.errors, 0)).toBe(all.totals.errors);
    expect(all.by_token).toHaveLength(8);
    expect(all.by_model.map((row) => row.calls).reduce((sum, calls) => sum + calls)).toBe(requests);
    const latencies = Array.from({ length: requests }, (_, index) => latencyOf(index)).sort(
      (left, right) => left - right,
    );
    const exact = latencies[Math.ceil(0.95 * requests) - 1]!;
    expect(Math.abs(all.latency!.p95_ms! - exact) / exact).toBeLessThanOrEqual(0.01);
    // Over whole days too, which the daily rollups answer (and the hours at both ends the hourly ones).
    const days = {
      from: new Date(now - 3 * 24 * HOUR - HOUR).toISOString(),
      to: new Date(now + 30 * HOUR).toISOString(),
    };
    const overDays = await queries.overview({ ...days, userId: null });
    expect(overDays.totals).toEqual(all.totals);
    expect(overDays.latency?.p95_ms).toBe(all.latency?.p95_ms);
    const byKey = (left: { token_id: string }, right: { token_id: string }) =>
      left.token_id.localeCompare(right.token_id);
    const keysOfUsers = perUser.flatMap((overview) => overview.by_token ?? []).sort(byKey);
    expect([...(overDays.by_token ?? [])].sort(byKey)).toEqual(keysOfUsers);
    expect(keysOfUsers).toHaveLength(8);
    const filtered = await queries.overview({ ...range, userId: null, model: 'deepseek-chat' });
    expect(filtered.totals.calls).toBe(requests / 3);
    expect(filtered.by_model.map((row) => row.model)).toEqual(['deepseek-chat']);
  });

  it('reads back model names holding every character the series text format escapes', async () => {
    // The series travels as TabSeparated: a model name is whatever a client sent.
    const names = ['tab\there', 'line\nbreak\r', 'back\\slash \\t', 'quote\' "é ✓', 'nul\u0000 \b\f'];
    const hostile = `${database}_names`;
    await migrateClickHouse(client, hostile);
    try {
      const written = Array.from({ length: 20 }, (_, index) =>
        request(index).map((event) =>
          event.type === 'request.completed'
            ? { ...event, body: { ...event.body, modelRequested: names[index % names.length]! } }
            : event.type === 'usage.recorded'
              ? { ...event, body: { ...event.body, model: names[index % names.length]! } }
              : event,
        ),
      ).flat() as GatewayEvent[];
      await new ClickHouseUsageWriter(client, hostile).write(written);
      const queries = new ClickHouseUsageQueries(client, hostile);
      const range = { from: new Date(now - 6 * HOUR).toISOString(), to: new Date(now + HOUR).toISOString() };
      for (const userId of [null, 'user-1']) {
        const overview = await queries.overview({ ...range, userId, granularity: 'hour' });
        const seriesModels = new Set(overview.series.map((row) => row.model));
        for (const model of overview.by_model.map((row) => row.model)) expect(names).toContain(model);
        for (const model of seriesModels) expect(names).toContain(model);
        if (userId === null) expect([...seriesModels].sort()).toEqual([...names].sort());
        expect(overview.totals.calls).toBe(userId === null ? 20 : 5);
      }
    } finally {
      await client.command({ query: `DROP DATABASE IF EXISTS ${hostile}` });
    }
  });

  it('pages through the usage log newest first, each request once, with its usage', async () => {
    const queries = new ClickHouseUsageQueries(client, database);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await queries.logs({ userId: null, limit: 25, ...(cursor ? { cursor } : {}) });
      seen.push(...page.items.map((item) => `${item.started_at} ${item.request_id} ${item.prompt_tokens}`));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    const expected = Array.from({ length: requests }, (_, index) => request(index)[0])
      .map((event) => event.type === 'request.completed' && event.body)
      .filter((body) => body !== false)
      .sort(
        (left, right) => right.startedAt.localeCompare(left.startedAt) || right.requestId.localeCompare(left.requestId),
      )
      .map((body) => `${body.startedAt} ${body.requestId} ${10 + Number(body.requestId.split('-')[1])}`);
    expect(seen).toEqual(expected);
    const mine = await queries.logs({ userId: 'user-1', limit: 5, status: 'ok' });
    expect(mine.items).toHaveLength(5);
    expect(mine.items.every((item) => item.status === 200 && item.completion_tokens > 0)).toBe(true);
  });
});
