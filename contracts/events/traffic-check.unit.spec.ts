/**
 * The hand check of traffic events against their zod schemas: it accepts the events the gateway
 * writes, with and without their optional fields (so the projector takes the fast path), and it never
 * accepts an event, however it is broken, that the schema refuses or would change (a stripped key).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gatewayEventSchema } from './index.ts';
import { certainlyValidTraffic } from './traffic-check.ts';
import { upcast } from './upcast.ts';

const requestCompleted = {
  eventId: '0190b2c4-8f3e-7a11-8000-00000000000a',
  type: 'request.completed',
  version: 2,
  occurredAt: '2026-11-26T10:15:00.123Z',
  body: {
    requestId: '0190b2c4-8f3e-7a11-8000-000000000001',
    userId: 'u1',
    tokenId: 't1',
    endpoint: 'chat.completions',
    modelRequested: 'gpt-4o-mini',
    modelServed: 'gpt-4o-mini-2024-07-18',
    channelId: 'c1',
    stream: true,
    status: 200,
    errorType: null,
    errorMessage: null,
    startedAt: '2026-11-26T10:14:59.900Z',
    latencyMs: 212.5,
    firstTokenMs: 40.25,
    clientAborted: false,
    attempts: [
      { channelId: 'c0', keyIndex: 1, status: 429, error: 'rate_limited', latencyMs: 3 },
      { channelId: 'c1', keyIndex: 0, status: 200, error: null, latencyMs: 200 },
    ],
    clientRequestId: 'trace-1',
    attribution: { endUser: 'alice', sessionId: 's-1', metadata: { feature: 'search', env: 'prod' } },
  },
};

const usageRecorded = {
  eventId: '0190b2c4-8f3e-7a11-8000-00000000000b',
  type: 'usage.recorded',
  version: 2,
  occurredAt: '2026-11-26T10:15:00.123Z',
  body: {
    requestId: '0190b2c4-8f3e-7a11-8000-000000000001',
    userId: 'u1',
    tokenId: 't1',
    channelId: 'c1',
    model: 'gpt-4o-mini',
    startedAt: '2026-11-26T10:14:59.900Z',
    promptTokens: 21,
    completionTokens: 10,
    cachedTokens: 0,
    cacheWriteTokens: 6,
    cacheWrite1hTokens: 4,
    reasoningTokens: 0,
    source: 'estimated',
    usageRefused: 'a count that was not a whole number',
    costNanoUsd: 41_000,
    price: {
      source: 'config',
      model: 'gpt-4o-mini',
      inputPerMillion: 1,
      outputPerMillion: 2,
      cacheReadPerMillion: 0.5,
      cacheWritePerMillion: 0,
      cacheWrite1hPerMillion: 3,
      perRequest: 0,
    },
  },
};

/** A request carrying its usage (version 2): the usage event's counts and cost, without its request's fields. */
const { requestId, userId, tokenId, channelId, model, startedAt, ...usageOfRequest } = usageRecorded.body;
const requestWithUsage = { ...requestCompleted, body: { ...requestCompleted.body, usage: usageOfRequest } };

function withoutOptional(
  event: typeof requestCompleted | typeof usageRecorded | typeof requestWithUsage,
): Record<string, unknown> {
  const body: Record<string, unknown> = { ...event.body };
  delete body['attempts'];
  delete body['clientRequestId'];
  delete body['attribution'];
  delete body['usageRefused'];
  delete body['cacheWrite1hTokens'];
  if (body['price']) body['price'] = withoutHourPrice(body['price']);
  if (body['usage']) {
    const usage: Record<string, unknown> = { ...(body['usage'] as object) };
    delete usage['usageRefused'];
    delete usage['cacheWrite1hTokens'];
    usage['price'] = withoutHourPrice(usage['price']);
    body['usage'] = usage;
  }
  return { ...event, body };
}

function withoutHourPrice(price: unknown): unknown {
  const { cacheWrite1hPerMillion, ...rest } = price as Record<string, unknown>;
  return rest;
}

const samples = [
  requestCompleted,
  usageRecorded,
  requestWithUsage,
  withoutOptional(requestCompleted),
  withoutOptional(usageRecorded),
  withoutOptional(requestWithUsage),
];

describe('the hand check of traffic events', () => {
  it('accepts what the gateway writes, with and without the optional fields, as the schema does', () => {
    for (const sample of samples) {
      expect(certainlyValidTraffic(sample)).toBe(true);
      expect(gatewayEventSchema.parse(sample)).toEqual(sample);
    }
    const unpriced = { ...usageRecorded, body: { ...usageRecorded.body, costNanoUsd: null, price: null } };
    expect(certainlyValidTraffic(unpriced)).toBe(true);
    const usage = { ...requestWithUsage.body.usage, costNanoUsd: null, price: null };
    expect(certainlyValidTraffic({ ...requestWithUsage, body: { ...requestWithUsage.body, usage } })).toBe(true);
  });

  it('leaves other types and older versions to the schema', () => {
    expect(certainlyValidTraffic({ ...usageRecorded, version: 1 })).toBe(false);
    expect(certainlyValidTraffic({ ...requestCompleted, version: 1 })).toBe(false);
    expect(upcast({ ...requestCompleted, version: 1 })).toEqual(requestCompleted);
    expect(certainlyValidTraffic({ ...requestCompleted, type: 'response.stored' })).toBe(false);
    const old: Record<string, unknown> = { ...withoutOptional(usageRecorded), version: 1 };
    const oldBody = old['body'] as Record<string, unknown>;
    delete oldBody['costNanoUsd'];
    delete oldBody['price'];
    expect(upcast(old)).toMatchObject({ version: 2, body: { costNanoUsd: null, price: null } });
  });

  it('never accepts an event the schema refuses or would change, whatever field is broken', () => {
    // A path into one of the samples (the envelope, the body, an attempt, the price) and what to do there.
    const paths = samples.flatMap((sample, index) => {
      const body = sample['body'] as Record<string, unknown>;
      const nested = [
        ...(Array.isArray(body['attempts'])
          ? Object.keys(body['attempts'][0]).map((key) => ['body', 'attempts', 0, key])
          : []),
        ...(body['price'] ? Object.keys(body['price'] as object).map((key) => ['body', 'price', key]) : []),
        ...(body['usage'] ? Object.keys(body['usage'] as object).map((key) => ['body', 'usage', key]) : []),
        ...(body['usage'] ? Object.keys(usageRecorded.body.price).map((key) => ['body', 'usage', 'price', key]) : []),
        ...(body['usage'] ? [['body', 'usage', 'unknownField']] : []),
        ...(body['attribution']
          ? [
              ...['endUser', 'sessionId', 'metadata', 'unknownField'].map((key) => ['body', 'attribution', key]),
              ...['feature', 'a'.repeat(65), 'bad name', '__proto__'].map((key) => [
                'body',
                'attribution',
                'metadata',
                key,
              ]),
            ]
          : []),
      ];
      return [
        ...Object.keys(sample).map((key) => [key]),
        ...Object.keys(body).map((key) => ['body', key]),
        ['body', 'attempts'],
        ['body', 'clientRequestId'],
        ['body', 'attribution'],
        ['body', 'usageRefused'],
        ['body', 'cacheWrite1hTokens'],
        ['body', 'price', 'cacheWrite1hPerMillion'],
        ['body', 'usage'],
        ['body', 'unknownField'],
        ['unknownField'],
        ...nested,
      ].map((path) => ({ index, path: path as Array<string | number> }));
    });
    const awkward = fc.oneof(
      fc.jsonValue(),
      fc.constantFrom(
        -1,
        1.5,
        2 ** 60,
        '',
        'Z',
        'x'.repeat(257),
        '2026-02-30T10:00:00Z',
        '2026-11-26T10:15:00+01:00',
        'not-a-uuid',
      ),
      fc.constant(undefined),
    );
    fc.assert(
      fc.property(fc.constantFrom(...paths), awkward, ({ index, path }, value) => {
        const event = structuredClone(samples[index]!) as Record<string, unknown>;
        let holder: any = event;
        for (const step of path.slice(0, -1)) {
          if (holder[step] === null || typeof holder[step] !== 'object') return;
          holder = holder[step];
        }
        const last = path.at(-1)!;
        if (value === undefined) delete holder[last];
        else holder[last] = value;
        if (!certainlyValidTraffic(event)) return;
        const parsed = gatewayEventSchema.safeParse(event);
        expect(parsed.success).toBe(true);
        expect(parsed.data).toEqual(event);
      }),
      { numRuns: 20_000 },
    );
  });
});
