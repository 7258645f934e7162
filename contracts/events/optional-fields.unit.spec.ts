/**
 * Fields added to published versions as OPTIONAL: events written before them stay valid (and mean
 * "none"), events with them keep them, and the token projection applies them.
 */
import { describe, expect, it } from 'vitest';
import { newEvent } from '../../gateway/events/new-event.ts';
import { evolve as evolveToken } from '../../projector/read-models/tokens/evolve.ts';
import { upcast } from './upcast.ts';

const issuedBefore = {
  tokenId: 't1',
  userId: 'u1',
  name: 'laptop',
  keyHash: 'hash',
  keyHint: 'sk-abcd…wxyz',
  expiresAt: null,
  quota: null,
  models: null,
};

describe('optional fields on version 1 events', () => {
  it('reads a token.issued written before the limits, and one with them', () => {
    const old = upcast(JSON.parse(JSON.stringify(newEvent('token.issued', issuedBefore))));
    expect(old.type === 'token.issued' && old.body.rpmLimit).toBeUndefined();
    const limited = newEvent('token.issued', {
      ...issuedBefore,
      ipAllowlist: ['10.0.0.0/8'],
      rpmLimit: 60,
      tpmLimit: 1000,
    });
    const read = upcast(JSON.parse(JSON.stringify(limited)));
    expect(read.body).toMatchObject({ ipAllowlist: ['10.0.0.0/8'], rpmLimit: 60, tpmLimit: 1000 });
    const document = evolveToken(null, limited)!;
    expect(document).toMatchObject({ rpmLimit: 60, tpmLimit: 1000 });
    const cleared = evolveToken(document, newEvent('token.updated', { tokenId: 't1', userId: 'u1', rpmLimit: null }))!;
    expect(cleared).toMatchObject({ rpmLimit: null, tpmLimit: 1000, ipAllowlist: ['10.0.0.0/8'] });
  });

  it('reads channel.configured with and without several keys, timeouts and a source', () => {
    const channel = {
      channelId: 'c1',
      name: 'pool',
      type: 'openai' as const,
      baseUrl: 'https://api.openai.com/v1',
      apiKeyCiphertext: 'v1.a.b.c',
      models: ['gpt-4o-mini'],
      modelMapping: {},
      priority: 0,
      weight: 1,
      thinkingToContent: false,
      enabled: true,
    };
    expect(upcast(JSON.parse(JSON.stringify(newEvent('channel.configured', channel)))).body).toEqual(channel);
    const pooled = {
      ...channel,
      apiKeyCiphertexts: ['v1.a.b.c', 'v1.d.e.f'],
      firstByteTimeoutMs: 3000,
      source: 'config' as const,
    };
    expect(upcast(JSON.parse(JSON.stringify(newEvent('channel.configured', pooled)))).body).toEqual(pooled);
  });

  it("reads request.completed with and without the retry chain and the caller's request id", () => {
    const body = {
      requestId: 'r1',
      userId: null,
      tokenId: null,
      endpoint: 'messages' as const,
      modelRequested: null,
      modelServed: null,
      channelId: null,
      stream: false,
      status: 401,
      errorType: 'authentication_error',
      errorMessage: 'no key',
      startedAt: '2025-03-01T10:15:00.000Z',
      latencyMs: 1,
      firstTokenMs: null,
      clientAborted: false,
    };
    expect(upcast(JSON.parse(JSON.stringify(newEvent('request.completed', body)))).body).toEqual(body);
    const attempts = [
      { channelId: 'c1', keyIndex: 0, status: 503, error: 'server_error', latencyMs: 12 },
      { channelId: 'c2', keyIndex: 1, status: 200, error: null, latencyMs: 30 },
    ];
    const read = upcast(JSON.parse(JSON.stringify(newEvent('request.completed', { ...body, attempts }))));
    expect(read.type === 'request.completed' && read.body.attempts).toEqual(attempts);
    const traced = { ...body, clientRequestId: 'trace-42' };
    expect(upcast(JSON.parse(JSON.stringify(newEvent('request.completed', traced)))).body).toEqual(traced);
  });

  it('reads usage.recorded with and without the reason its upstream usage was refused', () => {
    const body = {
      requestId: 'r1',
      userId: 'u1',
      tokenId: 't1',
      channelId: 'c1',
      model: 'gpt-4o-mini',
      startedAt: '2025-03-01T10:15:00.000Z',
      promptTokens: 12,
      completionTokens: 3,
      cachedTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
      source: 'estimated' as const,
      costNanoUsd: null,
      price: null,
    };
    expect(upcast(JSON.parse(JSON.stringify(newEvent('usage.recorded', body)))).body).toEqual(body);
    const refused = { ...body, usageRefused: 'usage.prompt_tokens was 1e+300' };
    expect(upcast(JSON.parse(JSON.stringify(newEvent('usage.recorded', refused)))).body).toEqual(refused);
  });
});
