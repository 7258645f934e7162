/**
 * The embedded store end to end on a temp directory: lookups and usage projections from appended
 * events, keyset paging of the usage log, exactly-once counting under replays, and a restart that
 * loses nothing and counts nothing twice.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GatewayEvent, RequestCompleted, UsageRecorded } from '../../contracts/events/index.ts';
import { newEvent } from '../../gateway/events/new-event.ts';
import { createEmbeddedStores, type EmbeddedStores } from './index.ts';

interface Call {
  id: string;
  userId: string;
  tokenId: string;
  model: string;
  at: string;
  status?: number;
  tokens?: [number, number];
}

function request(call: Call): RequestCompleted {
  const failed = (call.status ?? 200) >= 400;
  return newEvent('request.completed', {
    requestId: call.id,
    userId: call.userId,
    tokenId: call.tokenId,
    endpoint: call.model.startsWith('claude') ? 'messages' : 'chat.completions',
    modelRequested: call.model,
    modelServed: call.model,
    channelId: 'c1',
    stream: false,
    status: call.status ?? 200,
    errorType: failed ? 'upstream_error' : null,
    errorMessage: failed ? 'upstream failed' : null,
    startedAt: call.at,
    latencyMs: 100,
    firstTokenMs: null,
    clientAborted: false,
  });
}

const price = { source: 'config' as const, model: 'test', perRequest: 0 };

function usage(call: Call): UsageRecorded {
  const [promptTokens, completionTokens] = call.tokens ?? [0, 0];
  return newEvent('usage.recorded', {
    requestId: call.id,
    userId: call.userId,
    tokenId: call.tokenId,
    channelId: 'c1',
    model: call.model,
    startedAt: call.at,
    promptTokens,
    completionTokens,
    // every prompt token read from the cache or written to it, a third read
    cachedTokens: Math.floor(promptTokens / 3),
    cacheWriteTokens: promptTokens - Math.floor(promptTokens / 3),
    reasoningTokens: 0,
    source: 'upstream',
    // 1 USD per million prompt tokens, 2 per million completion tokens
    costNanoUsd: promptTokens * 1000 + completionTokens * 2000,
    price: { ...price, inputPerMillion: 1, outputPerMillion: 2, cacheReadPerMillion: 1, cacheWritePerMillion: 1 },
  });
}

const token = (tokenId: string, userId: string) =>
  newEvent('token.issued', {
    tokenId,
    userId,
    name: tokenId,
    keyHash: `hash-${tokenId}`,
    keyHint: 'sk-abcd…wxyz',
    expiresAt: null,
    quota: null,
    models: null,
  });
const user = (userId: string, email: string) =>
  newEvent('user.registered', { userId, email, name: userId, passwordHash: 'scrypt$x', role: 'user' });

const calls: Call[] = [
  { id: 'r1', userId: 'u1', tokenId: 't1', model: 'gpt-4o', at: '2025-03-01T10:05:00.000Z', tokens: [10, 20] },
  { id: 'r2', userId: 'u1', tokenId: 't1', model: 'gpt-4o', at: '2025-03-01T10:40:00.000Z', tokens: [30, 40] },
  { id: 'r3', userId: 'u1', tokenId: 't2', model: 'claude-x', at: '2025-03-01T11:10:00.000Z', tokens: [5, 5] },
  { id: 'r4', userId: 'u1', tokenId: 't2', model: 'gpt-4o', at: '2025-03-01T11:10:00.000Z', status: 502 },
  { id: 'r5', userId: 'u1', tokenId: 't1', model: 'claude-x', at: '2025-03-02T09:30:00.000Z', tokens: [100, 50] },
];
/** Another user's call, whose usage arrives before its request. */
const other: Call = {
  id: 'r6',
  userId: 'u2',
  tokenId: 't3',
  model: 'gpt-4o',
  at: '2025-03-01T10:15:00.000Z',
  tokens: [7, 3],
};

const entityEvents: GatewayEvent[] = [
  user('u1', 'ada@example.com'),
  user('u2', 'bob@example.com'),
  token('t1', 'u1'),
  token('t2', 'u1'),
  token('t3', 'u2'),
];
const trafficEvents: GatewayEvent[] = [
  ...calls.flatMap((call) => (call.tokens ? [request(call), usage(call)] : [request(call)])),
  usage(other),
  request(other),
];
const allEvents = [...entityEvents, ...trafficEvents];

const range = { from: '2025-03-01T00:00:00.000Z', to: '2025-03-03T00:00:00.000Z' };
const totals = (calls: number, errors: number, prompt: number, completion: number, cached: number) => ({
  calls,
  errors,
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
  cost_usd: (prompt * 1000 + completion * 2000) / 1e9,
  unpriced_requests: 0,
  refused_requests: 0,
  cached_tokens: cached,
  cache_write_tokens: prompt - cached,
});

let directory: string;
let stores: EmbeddedStores;

beforeEach(async () => {
  directory = mkdtempSync(path.join(tmpdir(), 'embedded-store-'));
  stores = await createEmbeddedStores(directory);
  await stores.events.append(allEvents);
  await stores.sync.caughtUp();
});

afterEach(async () => {
  await stores.close();
  rmSync(directory, { recursive: true, force: true });
});

/** How many events the log holds, read from the file as another reader would. */
function loggedEvents(): number {
  const database = new Database(path.join(directory, 'gateway.db'), { readonly: true });
  try {
    return database.prepare('SELECT coalesce(sum(event_count), 0) FROM event_batches').pluck().get() as number;
  } finally {
    database.close();
  }
}

/** Everything a console user or the hot path can read, to compare before and after. */
async function snapshot(store: EmbeddedStores) {
  const lookups = store.lookups;
  return {
    tokenByHash: lookups.tokenByKeyHash('hash-t1')?.tokenId,
    user: lookups.userByEmail('ada@example.com')?.userId,
    tokensOfUser: lookups
      .tokensOfUser('u1')
      .map((each) => each.tokenId)
      .sort(),
    usage: ['t1', 't2', 't3'].map((tokenId) => lookups.tokenUsage(tokenId)),
    overview: await store.usage.overview({ ...range, userId: null }),
    logs: await store.usage.logs({ userId: null }),
  };
}

describe('lookups', () => {
  it('find tokens by hash and id, users by email, tokens by owner', () => {
    expect(stores.lookups.tokenByKeyHash('hash-t2')).toMatchObject({ tokenId: 't2', userId: 'u1', enabled: true });
    expect(stores.lookups.tokenByKeyHash('hash-unknown')).toBeUndefined();
    expect(stores.lookups.userByEmail('bob@example.com')?.userId).toBe('u2');
    expect(
      stores.lookups
        .tokensOfUser('u1')
        .map((each) => each.tokenId)
        .sort(),
    ).toEqual(['t1', 't2']);
    expect(stores.lookups.users()).toHaveLength(2);
  });

  it("count each key's tokens and remember its last use", () => {
    expect(stores.lookups.tokenUsage('t1')).toEqual({ usedTokens: 250, lastUsedAt: '2025-03-02T09:30:00.000Z' });
    expect(stores.lookups.tokenUsage('t2')).toEqual({ usedTokens: 10, lastUsedAt: '2025-03-01T11:10:00.000Z' });
    expect(stores.lookups.tokenUsage('t3')).toEqual({ usedTokens: 10, lastUsedAt: '2025-03-01T10:15:00.000Z' });
  });
});

describe('usage overview', () => {
  it('totals and splits by model for one user', async () => {
    const overview = await stores.usage.overview({ ...range, userId: 'u1' });
    expect(overview.granularity).toBe('hour');
    expect(overview.totals).toEqual(totals(5, 1, 145, 115, 47));
    expect(overview.by_model).toHaveLength(2);
    expect(overview.by_model).toEqual(
      expect.arrayContaining([
        { model: 'claude-x', ...totals(2, 0, 105, 55, 34) },
        { model: 'gpt-4o', ...totals(3, 1, 40, 60, 13) },
      ]),
    );
  });

  // Sorted by the summed tokens of each model, not one arbitrary row of the group.
  it('lists the model with the most tokens first', async () => {
    const { by_model } = await stores.usage.overview({ ...range, userId: 'u1' });
    expect(by_model.map((row) => row.model)).toEqual(['claude-x', 'gpt-4o']);
  });

  it('gives an hourly series', async () => {
    const { series } = await stores.usage.overview({ ...range, userId: 'u1', granularity: 'hour' });
    expect(series).toEqual([
      { bucket: '2025-03-01T10:00:00.000Z', model: 'gpt-4o', ...totals(2, 0, 40, 60, 13) },
      { bucket: '2025-03-01T11:00:00.000Z', model: 'claude-x', ...totals(1, 0, 5, 5, 1) },
      { bucket: '2025-03-01T11:00:00.000Z', model: 'gpt-4o', ...totals(1, 1, 0, 0, 0) },
      { bucket: '2025-03-02T09:00:00.000Z', model: 'claude-x', ...totals(1, 0, 100, 50, 33) },
    ]);
  });

  it('gives a daily series', async () => {
    const { series } = await stores.usage.overview({ ...range, userId: 'u1', granularity: 'day' });
    expect(series).toEqual([
      { bucket: '2025-03-01T00:00:00.000Z', model: 'claude-x', ...totals(1, 0, 5, 5, 1) },
      { bucket: '2025-03-01T00:00:00.000Z', model: 'gpt-4o', ...totals(3, 1, 40, 60, 13) },
      { bucket: '2025-03-02T00:00:00.000Z', model: 'claude-x', ...totals(1, 0, 100, 50, 33) },
    ]);
  });

  it('filters by user, model, token and time', async () => {
    expect((await stores.usage.overview({ ...range, userId: null })).totals).toEqual(totals(6, 1, 152, 118, 49));
    expect((await stores.usage.overview({ ...range, userId: 'u2' })).totals).toEqual(totals(1, 0, 7, 3, 2));
    expect((await stores.usage.overview({ ...range, userId: 'u1', model: 'gpt-4o' })).totals.calls).toBe(3);
    expect((await stores.usage.overview({ ...range, userId: 'u1', token_id: 't2' })).totals).toEqual(
      totals(2, 1, 5, 5, 1),
    );
    const firstDay = { from: '2025-03-01T10:30:00.000Z', to: '2025-03-02T00:00:00.000Z', userId: 'u1' };
    // The start is widened to the whole hour: r1 at 10:05 is in.
    expect((await stores.usage.overview(firstDay)).totals).toEqual(totals(4, 1, 45, 65, 14));
  });
});

describe('usage logs', () => {
  it('pages with a cursor: newest first, no duplicates, no gaps, ties broken by id', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    const sizes: number[] = [];
    for (let page = 0; page < 10; page++) {
      const result = await stores.usage.logs({ userId: 'u1', limit: 2, ...(cursor && { cursor }) });
      sizes.push(result.items.length);
      seen.push(...result.items.map((item) => item.request_id));
      if (!result.next_cursor) break;
      cursor = result.next_cursor;
    }
    expect(sizes).toEqual([2, 2, 1]);
    expect(seen).toEqual(['r5', 'r4', 'r3', 'r2', 'r1']);
  });

  it('joins request and usage into one row, whichever arrived first', async () => {
    const { items } = await stores.usage.logs({ userId: 'u2' });
    expect(items).toEqual([
      expect.objectContaining({
        request_id: 'r6',
        endpoint: 'chat.completions',
        status: 200,
        prompt_tokens: 7,
        completion_tokens: 3,
        usage_estimated: false,
        token_id: 't3',
      }),
    ]);
  });
});

describe('exactly once', () => {
  it('ignores the same events appended again', async () => {
    const before = await snapshot(stores);
    const logged = loggedEvents();
    await stores.events.append(allEvents);
    expect(loggedEvents()).toBe(logged);
    await stores.sync.caughtUp();
    expect(await stores.catchUp()).toBe(0);
    expect(await snapshot(stores)).toEqual(before);
  });

  it('counts a request once when its events come again under new event ids', async () => {
    const before = await snapshot(stores);
    const copies = trafficEvents.map((each) => ({
      ...each,
      eventId: newEvent('channel.removed', { channelId: '' }).eventId,
    }));
    await stores.events.append(copies as GatewayEvent[]);
    await stores.sync.caughtUp();
    const after = await snapshot(stores);
    expect(after).toEqual(before);
    expect(after.overview.totals.calls).toBe(6);
    // The cache-write measure, summed in the rollups and read by the log, counts each request once too.
    expect(after.overview.totals).toMatchObject({ cached_tokens: 49, cache_write_tokens: 152 - 49 });
    expect(after.logs.items.find((item) => item.request_id === 'r5')).toMatchObject({ cache_write_tokens: 67 });
  });

  it('takes serialised batches side by side, and leaves the caller its bytes for a retry', async () => {
    const before = await snapshot(stores);
    const late: Call = { ...calls[0]!, id: 'r8', at: '2025-03-02T11:00:00.000Z', tokens: [2, 3] };
    const events = stores.events;
    // A small batch (its bytes can share Node's buffer pool) and one of its own memory, which a
    // transfer of the caller's own bytes would detach.
    const large = Array.from({ length: 20 }, () => trafficEvents).flat();
    const batches = [events.serialize!([request(late)]), events.serialize!([usage(late), ...large])];
    expect(batches[1]!.buffer.byteLength).toBe(batches[1]!.byteLength);
    const texts = batches.map((bytes) => Buffer.from(bytes).toString());
    await events.appendSerialized!(batches);
    expect(batches.map((bytes) => Buffer.from(bytes).toString())).toEqual(texts);
    const logged = loggedEvents();
    // The retry of an append whose reply was lost: nothing is logged, projected or counted twice.
    await events.appendSerialized!(batches);
    expect(loggedEvents()).toBe(logged);
    await stores.sync.caughtUp();
    const after = await snapshot(stores);
    expect(after.overview.totals).toEqual({
      ...before.overview.totals,
      ...totals(before.overview.totals.calls + 1, 1, 10 + 30 + 5 + 100 + 7 + 2, 20 + 40 + 5 + 50 + 3 + 3, 49),
    });
    expect(after.logs.items.map((row) => row.request_id)).toContain('r8');
  });

  it('loses nothing and counts nothing twice across a restart', async () => {
    const before = await snapshot(stores);
    await stores.close();
    stores = await createEmbeddedStores(directory);
    expect(await stores.catchUp()).toBe(0);
    expect(await snapshot(stores)).toEqual(before);

    const late: Call = {
      id: 'r7',
      userId: 'u1',
      tokenId: 't1',
      model: 'gpt-4o',
      at: '2025-03-02T10:00:00.000Z',
      tokens: [1, 1],
    };
    await stores.events.append([request(late), usage(late), ...allEvents]);
    await stores.sync.caughtUp();
    expect((await stores.usage.overview({ ...range, userId: null })).totals).toEqual(totals(7, 1, 153, 119, 49));
    expect(stores.lookups.tokenUsage('t1').usedTokens).toBe(252);
  });
});
