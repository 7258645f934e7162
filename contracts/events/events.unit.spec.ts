/**
 * Every event type of the closed union: a valid sample parses, a missing field is refused, each type
 * belongs to its stream and partition; `newEvent` builds envelopes with time-ordered UUIDv7 ids.
 */
import { describe, expect, it } from 'vitest';
import { newEvent } from '../../gateway/events/new-event.ts';
import { type GatewayEvent, type GatewayEventType, gatewayEventSchema, partitionKeyOf, streamOf } from './index.ts';
import { upcast } from './upcast.ts';

const at = '2025-03-01T10:15:00.000Z';

const bodies: { [Type in GatewayEventType]: Extract<GatewayEvent, { type: Type }>['body'] } = {
  'user.registered': {
    userId: 'u1',
    email: 'ada@example.com',
    name: 'Ada',
    passwordHash: 'scrypt$16384$8$1$salt$hash',
    role: 'user',
  },
  'user.updated': { userId: 'u1', disabled: true },
  'session.ended': { userId: 'u1', sessionId: 's1', expiresAt: '2025-03-08T10:15:00.000Z' },
  'token.issued': {
    tokenId: 't1',
    userId: 'u1',
    name: 'laptop',
    keyHash: 'hash',
    keyHint: 'sk-abcd…wxyz',
    expiresAt: null,
    quota: 1000,
    models: ['gpt-4o-mini'],
  },
  'token.updated': { tokenId: 't1', userId: 'u1', enabled: false },
  'token.revoked': { tokenId: 't1', userId: 'u1' },
  'channel.configured': {
    channelId: 'c1',
    name: 'openai main',
    type: 'openai',
    baseUrl: 'https://api.openai.com/v1',
    apiKeyCiphertext: 'v1.iv.tag.data',
    models: ['gpt-4o-mini'],
    modelMapping: {},
    priority: 0,
    weight: 1,
    thinkingToContent: false,
    enabled: true,
  },
  'channel.removed': { channelId: 'c1' },
  'request.completed': {
    requestId: 'r1',
    userId: 'u1',
    tokenId: 't1',
    endpoint: 'chat.completions',
    modelRequested: 'gpt-4o-mini',
    modelServed: 'gpt-4o-mini-2024-07-18',
    channelId: 'c1',
    stream: false,
    status: 200,
    errorType: null,
    errorMessage: null,
    startedAt: at,
    latencyMs: 420,
    firstTokenMs: null,
    clientAborted: false,
  },
  'usage.recorded': {
    requestId: 'r1',
    userId: 'u1',
    tokenId: 't1',
    channelId: 'c1',
    model: 'gpt-4o-mini',
    startedAt: at,
    promptTokens: 12,
    completionTokens: 30,
    cachedTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    source: 'upstream',
    costNanoUsd: 25_800,
    price: {
      source: 'config',
      model: 'gpt-4o-mini',
      inputPerMillion: 0.15,
      outputPerMillion: 0.6,
      cacheReadPerMillion: 0.075,
      cacheWritePerMillion: 0.15,
      perRequest: 0,
    },
  },
  'response.stored': {
    responseId: 'resp_1',
    userId: 'u1',
    tokenId: 't1',
    requestId: 'r1',
    previousResponseId: null,
    channelId: 'c1',
    channelType: 'anthropic',
    native: false,
    model: 'claude-sonnet-4-5',
    status: 'completed',
    createdAt: 1_740_824_100,
    usage: { inputTokens: 12, outputTokens: 30 },
    inputItems: [{ type: 'message', role: 'user', content: 'Hello' }],
    outputItems: [{ type: 'message', id: 'msg_1', role: 'assistant', content: [] }],
    settings: { instructions: null },
  },
  'response.deleted': { responseId: 'resp_1', userId: 'u1' },
  'payload.captured': {
    requestId: 'r1',
    userId: 'u1',
    tokenId: 't1',
    expiresAt: at,
    encoding: 'zstd',
    data: 'KLUv/QBYAQAAe30=',
    rawBytes: 2,
    storedBytes: 11,
  },
  'payloads.deleted': { userId: 'u1', tokenId: 't1', reason: 'key_revoked' },
};

/** The version `newEvent` writes; every other type is still at its first. */
const currentVersion = (type: GatewayEventType) => (type === 'usage.recorded' || type === 'request.completed' ? 2 : 1);

const expected: Record<GatewayEventType, { stream: 'entity' | 'traffic'; key: string; required: string }> = {
  'user.registered': { stream: 'entity', key: 'u1', required: 'email' },
  'user.updated': { stream: 'entity', key: 'u1', required: 'userId' },
  'session.ended': { stream: 'entity', key: 'u1', required: 'sessionId' },
  'token.issued': { stream: 'entity', key: 't1', required: 'keyHash' },
  'token.updated': { stream: 'entity', key: 't1', required: 'tokenId' },
  'token.revoked': { stream: 'entity', key: 't1', required: 'userId' },
  'channel.configured': { stream: 'entity', key: 'c1', required: 'apiKeyCiphertext' },
  'channel.removed': { stream: 'entity', key: 'c1', required: 'channelId' },
  'request.completed': { stream: 'traffic', key: 'r1', required: 'status' },
  'usage.recorded': { stream: 'traffic', key: 'r1', required: 'promptTokens' },
  'response.stored': { stream: 'traffic', key: 'resp_1', required: 'outputItems' },
  'response.deleted': { stream: 'traffic', key: 'resp_1', required: 'userId' },
  'payload.captured': { stream: 'traffic', key: 'r1', required: 'data' },
  'payloads.deleted': { stream: 'traffic', key: 'u1', required: 'reason' },
};

const types = Object.keys(bodies) as GatewayEventType[];

function sample(type: GatewayEventType): GatewayEvent {
  return {
    eventId: '0195a5b2-7c00-7000-8000-000000000001',
    type,
    version: currentVersion(type),
    occurredAt: at,
    body: bodies[type],
  } as GatewayEvent;
}

function without(record: object, field: string): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...record };
  delete copy[field];
  return copy;
}

describe.each(types)('%s', (type) => {
  it('parses a valid sample unchanged', () => {
    expect(gatewayEventSchema.parse(sample(type))).toEqual(sample(type));
  });

  it(`refuses a body without ${expected[type].required}`, () => {
    const event = { ...sample(type), body: without(sample(type).body, expected[type].required) };
    expect(gatewayEventSchema.safeParse(event).success).toBe(false);
  });

  it.each(['eventId', 'version', 'occurredAt', 'body'])('refuses an envelope without %s', (field) => {
    expect(gatewayEventSchema.safeParse(without(sample(type), field)).success).toBe(false);
  });

  it('refuses an unknown version and a non-UUID id', () => {
    expect(gatewayEventSchema.safeParse({ ...sample(type), version: currentVersion(type) + 1 }).success).toBe(false);
    expect(gatewayEventSchema.safeParse({ ...sample(type), eventId: 'not-a-uuid' }).success).toBe(false);
  });

  it(`goes to the ${expected[type].stream} stream, keyed by ${expected[type].key}`, () => {
    expect(streamOf(type)).toBe(expected[type].stream);
    expect(partitionKeyOf(sample(type))).toBe(expected[type].key);
  });

  it('upcast returns a current event unchanged', () => {
    expect(upcast(JSON.parse(JSON.stringify(sample(type))))).toEqual(sample(type));
  });

  it('newEvent builds a valid envelope', () => {
    const now = new Date('2025-06-01T12:00:00.000Z');
    const event = newEvent(type, bodies[type] as never, now);
    expect(gatewayEventSchema.parse(event)).toEqual(event);
    expect(event).toMatchObject({
      type,
      version: currentVersion(type),
      occurredAt: '2025-06-01T12:00:00.000Z',
      body: bodies[type],
    });
  });
});

describe('the union', () => {
  it('refuses an unknown type', () => {
    expect(gatewayEventSchema.safeParse({ ...sample('token.revoked'), type: 'token.deleted' }).success).toBe(false);
    expect(() => upcast({ ...sample('token.revoked'), type: 'token.deleted' })).toThrow();
  });

  it('refuses values out of their ranges', () => {
    const usage = sample('usage.recorded');
    expect(gatewayEventSchema.safeParse({ ...usage, body: { ...usage.body, promptTokens: -1 } }).success).toBe(false);
    expect(gatewayEventSchema.safeParse({ ...usage, body: { ...usage.body, source: 'guessed' } }).success).toBe(false);
    const channel = sample('channel.configured');
    expect(gatewayEventSchema.safeParse({ ...channel, body: { ...channel.body, type: 'not-a-kind' } }).success).toBe(
      false,
    );
    const user = sample('user.registered');
    expect(gatewayEventSchema.safeParse({ ...user, body: { ...user.body, role: 'root' } }).success).toBe(false);
  });

  it('accepts a refused request with no user, token, model or channel', () => {
    const request = sample('request.completed');
    const body = { ...request.body, userId: null, tokenId: null, modelRequested: null, channelId: null, status: 401 };
    expect(gatewayEventSchema.safeParse({ ...request, body }).success).toBe(true);
  });

  it('accepts a request carrying its usage, and refuses usage on a request without a user or a key', () => {
    const request = sample('request.completed');
    const usage = { ...bodies['usage.recorded'] } as Record<string, unknown>;
    for (const field of ['requestId', 'userId', 'tokenId', 'channelId', 'model', 'startedAt']) delete usage[field];
    const body = { ...request.body, usage };
    expect(gatewayEventSchema.parse({ ...request, body })).toEqual({ ...request, body });
    expect(gatewayEventSchema.safeParse({ ...request, body: { ...body, tokenId: null } }).success).toBe(false);
    expect(gatewayEventSchema.safeParse({ ...request, body: { ...body, userId: null } }).success).toBe(false);
    // the usage's own fields are the request's: a usage body that repeats them is not this contract's
    expect(gatewayEventSchema.parse({ ...request, body: { ...body, usage: bodies['usage.recorded'] } })).not.toEqual({
      ...request,
      body: { ...body, usage: bodies['usage.recorded'] },
    });
  });

  it('lifts a version 1 request, written when usage was a second event, to version 2 with no usage', () => {
    const request = sample('request.completed');
    expect(upcast({ ...request, version: 1 })).toEqual(request);
    expect(gatewayEventSchema.safeParse({ ...request, version: 1 }).success).toBe(false);
  });
});

describe('newEvent ids', () => {
  it('are UUIDv7: version nibble 7 and RFC 4122 variant', () => {
    const event = newEvent('token.revoked', { tokenId: 't', userId: 'u' });
    expect(event.eventId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Date(event.occurredAt).toISOString()).toBe(event.occurredAt);
  });

  it('carry their creation time in the first 48 bits', () => {
    const before = Date.now();
    const { eventId } = newEvent('channel.removed', { channelId: 'c' });
    const after = Date.now();
    const millis = Number.parseInt(eventId.replaceAll('-', '').slice(0, 12), 16);
    expect(millis).toBeGreaterThanOrEqual(before);
    expect(millis).toBeLessThanOrEqual(after);
  });

  it('sort by creation time and are all distinct', async () => {
    const ids: string[] = [];
    for (let index = 0; index < 200; index++) {
      ids.push(newEvent('channel.removed', { channelId: `c${index}` }).eventId);
      if (index % 50 === 0) await new Promise((resolve) => setTimeout(resolve, 2));
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });
});
