import { describe, expect, it } from 'vitest';
import type { GatewayEvent } from '../../contracts/events/index.ts';
import { newEvent } from '../../gateway/events/new-event.ts';
import { requestColumns, touchedOf, trafficRows, usageColumns } from './clickhouse-traffic-rows.ts';

function completed(requestId: string, userId: string | null, startedAt: string): GatewayEvent {
  return newEvent('request.completed', {
    requestId,
    userId,
    tokenId: userId && `key-of-${userId}`,
    endpoint: 'chat.completions',
    modelRequested: 'model\twith a tab',
    modelServed: 'model',
    channelId: 'channel-1',
    stream: false,
    status: 200,
    errorType: null,
    errorMessage: null,
    startedAt,
    latencyMs: 12,
    firstTokenMs: null,
    clientAborted: false,
  });
}

function used(requestId: string, userId: string, startedAt: string): GatewayEvent {
  return newEvent('usage.recorded', {
    requestId,
    userId,
    tokenId: `key-of-${userId}`,
    channelId: 'channel-1',
    model: 'model',
    startedAt,
    promptTokens: 7,
    completionTokens: 3,
    cachedTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    source: 'upstream',
    costNanoUsd: 120,
    price: null,
  });
}

const lines = (buffers: Buffer[]) => Buffer.concat(buffers).toString('utf8').split('\n').slice(0, -1);

describe('the raw rows of a batch of traffic', () => {
  it('encodes each traffic event as one escaped line of its table, and leaves other events out', () => {
    const rows = trafficRows([
      completed('r1', 'u1', '2026-03-01T10:15:30.250Z'),
      used('r1', 'u1', '2026-03-01T10:15:30.250Z'),
      newEvent('token.updated', { tokenId: 't1', userId: 'u1', enabled: false }),
      completed('r2', null, '2026-03-01T10:16:00.000Z'),
    ]);
    const requests = lines(rows.requests).map((line) => line.split('\t'));
    expect(requests.map((fields) => fields.length)).toEqual([requestColumns.length, requestColumns.length]);
    expect(requests[0]!.slice(0, 7)).toEqual([
      'r1',
      String(Date.parse('2026-03-01T10:15:30Z') / 1000),
      String(Date.parse('2026-03-01T10:15:30.250Z')),
      'u1',
      'key-of-u1',
      'chat.completions',
      'model\\twith a tab',
    ]);
    expect(requests[1]!.slice(0, 5)).toEqual(['r2', expect.any(String), expect.any(String), '', '']);
    const usage = lines(rows.usage).map((line) => line.split('\t'));
    expect(usage).toHaveLength(1);
    expect(usage[0]!.length).toBe(usageColumns.length);
    expect(usage[0]!.at(-2)).toBe('120');
  });

  it('records the minutes each user touched, and merges several batches’ minutes', () => {
    const minute = (time: string) => Date.parse(time) / 1000;
    const first = trafficRows([
      completed('r1', 'u1', '2026-03-01T10:15:30.000Z'),
      used('r1', 'u1', '2026-03-01T10:15:30.000Z'),
      completed('r2', null, '2026-03-01T11:00:59.999Z'),
    ]);
    expect(first.touched).toEqual(
      new Map([
        ['u1', new Set([minute('2026-03-01T10:15:00Z')])],
        ['', new Set([minute('2026-03-01T11:00:00Z')])],
      ]),
    );
    const second = trafficRows([completed('r3', 'u1', '2026-03-01T10:20:00.000Z')]);
    expect(touchedOf([first, second]).get('u1')).toEqual(
      new Set([minute('2026-03-01T10:15:00Z'), minute('2026-03-01T10:20:00Z')]),
    );
    // Merging copies: the batches' own sets are left as they were, for a retried write.
    expect(first.touched.get('u1')!.size).toBe(1);
    expect(trafficRows([])).toEqual({ requests: [], usage: [], touched: new Map() });
  });
});
