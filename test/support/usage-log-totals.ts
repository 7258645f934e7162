/**
 * @module test/support/usage-log-totals
 * The usage log's count of matching requests, checked against a count made here from the events, for
 * every pairing of a set of ranges (whole hours, hours cut at either end, open at either end, inside
 * one hour) with a set of filters. ClickHouse sums whole hours from its rollups and counts only the
 * cut hours from raw rows (stores/cluster/clickhouse-usage-log-total.ts); SQLite counts raw rows. Both
 * must give the count the events make, with every event written twice.
 */
import { expect } from 'vitest';
import type { UsageLogsQuery } from '../../contracts/console-api.ts';
import type { GatewayEvent } from '../../contracts/events/index.ts';
import { newEvent } from '../../gateway/events/new-event.ts';
import type { LogReader } from './usage-log-scenario.ts';

interface Sent {
  requestId: string;
  userId: string;
  tokenId: string;
  model: string;
  startedAt: number;
  failed: boolean;
}

const HOUR_MS = 3_600_000;
const base = Date.parse('2026-03-02T08:00:00.000Z');

/** Requests over four past hours, and a few in the current hour (`now`'s). */
export function sentRequests(now: number): Sent[] {
  const sent: Sent[] = [];
  const currentHour = Math.floor(now / HOUR_MS) * HOUR_MS;
  const times = [
    ...Array.from({ length: 48 }, (_, index) => base + index * 5 * 60_000 + (index % 7) * 1_237),
    // Either side of the ranges' cuts inside a second (08:20:30.500 and 10:40:10.250, below).
    ...[-1, 0, 1].flatMap((offset) => [
      Date.parse('2026-03-02T08:20:30.500Z') + offset,
      Date.parse('2026-03-02T10:40:10.250Z') + offset,
    ]),
    // The current hour, before now: the part of an open range that no rollup has finished.
    ...Array.from({ length: 4 }, (_, index) => currentHour + Math.floor(((now - currentHour) * index) / 5)),
  ];
  times.forEach((startedAt, index) => {
    const user = index % 3 === 0 ? 'b' : 'a';
    sent.push({
      requestId: `total-${String(index).padStart(3, '0')}`,
      userId: `user-${user}`,
      tokenId: user === 'b' ? 'key-b-1' : `key-a-${(index % 2) + 1}`,
      model: index % 4 === 0 ? 'claude-sonnet-4-5' : 'gpt-4o-mini',
      startedAt,
      failed: index % 5 === 0,
    });
  });
  return sent;
}

/**
 * Each request's events. A failed one is, in turn, an error inside a 200 stream, a 500 with its
 * error type, or a 502 without one: the status alone makes it an error.
 */
export function totalsEvents(sent: readonly Sent[]): GatewayEvent[] {
  return sent.flatMap((request, index) => {
    const startedAt = new Date(request.startedAt).toISOString();
    const common = { requestId: request.requestId, userId: request.userId, tokenId: request.tokenId, startedAt };
    const inStream = request.failed && index % 2 === 0;
    return [
      newEvent('request.completed', {
        ...common,
        endpoint: 'chat.completions',
        modelRequested: request.model,
        modelServed: request.model,
        channelId: 'channel-main',
        stream: inStream,
        status: request.failed && !inStream ? (index % 3 === 0 ? 502 : 500) : 200,
        errorType: request.failed && (inStream || index % 3 !== 0) ? 'upstream_error' : null,
        errorMessage: null,
        latencyMs: 100 + index,
        firstTokenMs: null,
        clientAborted: false,
        attempts: [],
      }),
      newEvent('usage.recorded', {
        ...common,
        channelId: 'channel-main',
        model: request.model,
        promptTokens: 10,
        completionTokens: 5,
        cachedTokens: 0,
        cacheWriteTokens: 0,
        reasoningTokens: 0,
        source: 'upstream',
        costNanoUsd: null,
        price: null,
      }),
    ];
  });
}

type Filters = Omit<UsageLogsQuery, 'from' | 'to'> & { userId: string | null };

const at = (iso: string) => new Date(iso).toISOString();
/** The ranges, some of them running into the future of `now`, or beyond what ClickHouse's DateTime holds. */
const rangesAt = (now: number): Array<{ from?: string; to?: string }> => [
  { from: at('2026-03-02T09:00:00Z'), to: new Date(now + 2 * 24 * HOUR_MS).toISOString() },
  { from: at('1969-12-31T00:00:00Z'), to: at('2026-03-02T10:00:00Z') },
  { from: at('2107-01-01T00:00:00Z') },
  { from: at('2026-03-02T00:00:00Z'), to: at('2026-03-03T00:00:00Z') },
  { from: at('2026-03-02T09:00:00Z'), to: at('2026-03-02T11:00:00Z') },
  { from: at('2026-03-02T08:20:30.500Z'), to: at('2026-03-02T10:40:10.250Z') },
  { from: at('2026-03-02T09:14:59Z'), to: at('2026-03-02T09:45:00Z') },
  { to: at('2026-03-02T09:30:00Z') },
  { from: at('2026-03-02T09:15:00Z') },
  {},
];
const filters: Filters[] = [
  { userId: null },
  { userId: 'user-a' },
  { userId: null, token_id: 'key-a-2' },
  { userId: null, model: 'SONNET' },
  { userId: null, status: 'ok' },
  { userId: null, status: 'error' },
  { userId: 'user-a', model: 'gpt', status: 'error' },
  { userId: null, token_id: 'key-b-1', model: 'sonnet', status: 'ok' },
  { userId: 'user-b', token_id: 'key-a-1' },
];

function expectedCount(sent: readonly Sent[], range: { from?: string; to?: string }, filter: Filters): number {
  return sent.filter(
    (request) =>
      (!range.from || request.startedAt >= Date.parse(range.from)) &&
      (!range.to || request.startedAt < Date.parse(range.to)) &&
      (filter.userId === null || request.userId === filter.userId) &&
      (!filter.token_id || request.tokenId === filter.token_id) &&
      (!filter.model || request.model.toLowerCase().includes(filter.model.toLowerCase())) &&
      (!filter.status || (filter.status === 'error') === request.failed),
  ).length;
}

/** Every range with every filter: the first page's `total` equals the count of the requests sent. */
export async function checkUsageLogTotals(logs: LogReader, sent: readonly Sent[]): Promise<void> {
  const answers: string[] = [];
  const expected: string[] = [];
  for (const range of rangesAt(Date.now())) {
    for (const filter of filters) {
      const label = JSON.stringify({ ...range, ...filter });
      const page = await logs({ ...range, ...filter, limit: 1 });
      answers.push(`${label} → ${page.total}`);
      expected.push(`${label} → ${expectedCount(sent, range, filter)}`);
    }
  }
  expect(answers).toEqual(expected);
  // Not a scenario of zeros: most pairings find requests.
  expect(expected.filter((line) => !line.endsWith('→ 0')).length).toBeGreaterThan(50);
}

/**
 * Every page of a filter, newest first: the pages hold each match once, in order, across the current
 * hour and hours months before it (a page's search widens from the last hour to the last day to all).
 */
export async function checkUsageLogPages(logs: LogReader, sent: readonly Sent[]): Promise<void> {
  for (const filter of filters.slice(0, 4)) {
    const listed: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await logs({ ...filter, limit: 7, ...(cursor && { cursor }) });
      listed.push(...page.items.map((item) => item.request_id));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    const newestFirst = sent
      .filter((request) => expectedCount([request], {}, filter) === 1)
      .sort((a, b) => b.startedAt - a.startedAt || (a.requestId < b.requestId ? 1 : -1))
      .map((request) => request.requestId);
    expect(listed).toEqual(newestFirst);
  }
}
