/**
 * The document read models, Given (earlier events) / When (an event) / Then (the document), and their
 * idempotency: applying every event twice in a row yields the documents of applying each once.
 */
import { describe, expect, it } from 'vitest';
import type { GatewayEvent, GatewayEventType, RequestCompleted } from '../../contracts/events/index.ts';
import { newEvent } from '../../gateway/events/new-event.ts';
import * as channels from './channels/evolve.ts';
import { documentModels } from './document-models.ts';
import * as tokens from './tokens/evolve.ts';
import { HOUR_MS, hourOf, isError, rollupKeyOfRequest, rollupKeyOfUsage } from './usage/rollup.ts';
import { MOST_ENDED_SESSIONS, sessionEnded } from './users/ended-sessions.ts';
import * as users from './users/evolve.ts';

let clock = Date.parse('2025-03-01T10:00:00.000Z');
function event<Type extends GatewayEventType>(type: Type, body: Parameters<typeof newEvent<Type>>[1]) {
  clock += 60_000;
  return newEvent(type, body, new Date(clock));
}

const issued = event('token.issued', {
  tokenId: 't1',
  userId: 'u1',
  name: 'laptop',
  keyHash: 'hash-1',
  keyHint: 'sk-abcd…wxyz',
  expiresAt: null,
  quota: null,
  models: null,
});
const renamed = event('token.updated', { tokenId: 't1', userId: 'u1', name: 'desktop', quota: 5000 });
const disabled = event('token.updated', { tokenId: 't1', userId: 'u1', enabled: false, models: ['gpt-4o'] });
const revoked = event('token.revoked', { tokenId: 't1', userId: 'u1' });
const registered = event('user.registered', {
  userId: 'u1',
  email: 'ada@example.com',
  name: 'Ada',
  passwordHash: 'scrypt$…',
  role: 'admin',
});
const channelBody = {
  channelId: 'c1',
  name: 'main',
  type: 'openai' as const,
  baseUrl: 'https://api.openai.com/v1',
  apiKeyCiphertext: 'v1.a.b.c',
  models: ['gpt-4o'],
  modelMapping: {},
  priority: 0,
  weight: 1,
  thinkingToContent: false,
  enabled: true,
};
const configured = event('channel.configured', channelBody);
const reconfigured = event('channel.configured', { ...channelBody, weight: 5, models: ['gpt-4o', 'o3'] });
const removed = event('channel.removed', { channelId: 'c1' });

/** Folds events into documents per collection/id, as the stores do, applying each `times` in a row. */
function project(events: GatewayEvent[], times = 1): Map<string, unknown> {
  const documents = new Map<string, unknown>();
  for (const current of events) {
    for (let repeat = 0; repeat < times; repeat++) {
      for (const model of documentModels) {
        if (!model.canHandle(current)) continue;
        const key = `${model.collection}/${model.documentIdOf(current)}`;
        const next = model.evolve(documents.get(key) ?? null, current);
        if (next) documents.set(key, next);
        else documents.delete(key);
      }
    }
  }
  return documents;
}

describe('tokens', () => {
  it('token.issued creates an enabled, unrevoked document', () => {
    expect(tokens.evolve(null, issued)).toEqual({
      ...issued.body,
      enabled: true,
      revoked: false,
      createdAt: issued.occurredAt,
      updatedAt: issued.occurredAt,
    });
  });

  it('token.updated changes only the fields it carries', () => {
    const given = tokens.evolve(null, issued);
    const then = tokens.evolve(given, renamed);
    expect(then).toMatchObject({ name: 'desktop', quota: 5000, enabled: true, models: null, keyHash: 'hash-1' });
    expect(then?.createdAt).toBe(issued.occurredAt);
    expect(then?.updatedAt).toBe(renamed.occurredAt);
    expect(tokens.evolve(then, disabled)).toMatchObject({ name: 'desktop', enabled: false, models: ['gpt-4o'] });
  });

  it('token.updated can clear a limit back to null', () => {
    const limited = tokens.evolve(tokens.evolve(null, issued), renamed);
    const cleared = event('token.updated', { tokenId: 't1', userId: 'u1', quota: null });
    expect(tokens.evolve(limited, cleared)?.quota).toBeNull();
  });

  it('token.revoked disables for good', () => {
    const then = tokens.evolve(tokens.evolve(null, issued), revoked);
    expect(then).toMatchObject({ revoked: true, enabled: false, updatedAt: revoked.occurredAt });
  });

  it('update or revoke of an unknown token creates nothing', () => {
    expect(tokens.evolve(null, renamed)).toBeNull();
    expect(tokens.evolve(null, revoked)).toBeNull();
  });

  it('handles token events only, keyed by tokenId', () => {
    expect([issued, renamed, revoked].every((each) => tokens.canHandle(each))).toBe(true);
    expect(tokens.canHandle(registered)).toBe(false);
    expect(tokens.documentIdOf(revoked)).toBe('t1');
  });
});

describe('users', () => {
  it('user.registered creates the account', () => {
    expect(users.evolve(null, registered)).toEqual({ ...registered.body, createdAt: registered.occurredAt });
  });

  it('user.updated changes only the fields it names, and ignores unknown accounts', () => {
    const update = event('user.updated', { userId: 'u1', disabled: true, role: 'user' });
    const given = users.evolve(null, registered);
    expect(users.evolve(given, update)).toEqual({ ...given, disabled: true, role: 'user' });
    expect(users.evolve(users.evolve(given, update), update)).toEqual(users.evolve(given, update));
    expect(users.evolve(null, update)).toBeNull();
  });

  it('a replayed registration keeps the first creation time', () => {
    const later = { ...registered, occurredAt: '2030-01-01T00:00:00.000Z' };
    expect(users.evolve(users.evolve(null, registered), later)?.createdAt).toBe(registered.occurredAt);
  });
});

describe('users: sessions signed out of (session.ended)', () => {
  const day = 24 * 3_600_000;
  const ended = (sessionId: string, expiresInDays: number) =>
    event('session.ended', {
      userId: 'u1',
      sessionId,
      expiresAt: new Date(clock + expiresInDays * day).toISOString(),
    });

  it('lists the session as ended until its expiry, and leaves every other session alone', () => {
    const signedOut = ended('s1', 7);
    const document = users.evolve(users.evolve(null, registered), signedOut)!;
    const expiry = Date.parse(signedOut.body.expiresAt);
    expect(sessionEnded(document, 's1', expiry)).toBe(true);
    expect(sessionEnded(document, 's2', expiry)).toBe(false);
    expect(document).toMatchObject({ email: 'ada@example.com', passwordHash: 'scrypt$…' });
  });

  it('forgets sessions whose expiry passed before a later sign-out', () => {
    const early = ended('s1', 1);
    clock += 2 * day;
    const later = ended('s2', 7);
    const document = users.evolve(users.evolve(users.evolve(null, registered), early), later)!;
    expect(Object.keys(document.endedSessions!)).toEqual(['s2']);
  });

  it('ignores an unknown account', () => {
    expect(users.evolve(null, ended('s1', 7))).toBeNull();
  });

  it(`keeps at most ${MOST_ENDED_SESSIONS}, folding the soonest-expiring into a bound that still ends them`, () => {
    let document = users.evolve(null, registered)!;
    const all = Array.from({ length: MOST_ENDED_SESSIONS + 5 }, (_, index) => ended(`s${index}`, 7));
    for (const signedOut of all) document = users.evolve(document, signedOut)!;
    expect(Object.keys(document.endedSessions!)).toHaveLength(MOST_ENDED_SESSIONS);
    for (const signedOut of all) {
      expect(sessionEnded(document, signedOut.body.sessionId, Date.parse(signedOut.body.expiresAt))).toBe(true);
    }
    // A session issued after the last sign-out expires later than the bound: still valid.
    expect(sessionEnded(document, 'fresh', clock + 8 * day)).toBe(false);
  });
});

describe('channels', () => {
  it('channel.configured sets the whole document, a later one replaces it', () => {
    const given = channels.evolve(null, configured);
    expect(given).toEqual({ ...channelBody, updatedAt: configured.occurredAt });
    expect(channels.evolve(given, reconfigured)).toMatchObject({ weight: 5, models: ['gpt-4o', 'o3'] });
  });

  it('channel.removed deletes it', () => {
    expect(channels.evolve(channels.evolve(null, configured), removed)).toBeNull();
    expect(channels.documentIdOf(removed)).toBe('c1');
  });
});

describe('idempotency (every event applied twice in a row)', () => {
  const signedOut = event('session.ended', {
    userId: 'u1',
    sessionId: 's1',
    expiresAt: new Date(clock + 7 * 24 * 3_600_000).toISOString(),
  });
  const signedOutAgain = event('session.ended', {
    userId: 'u1',
    sessionId: 's2',
    expiresAt: new Date(clock + 7 * 24 * 3_600_000).toISOString(),
  });
  const history: GatewayEvent[] = [
    registered,
    configured,
    issued,
    signedOut,
    renamed,
    reconfigured,
    signedOutAgain,
    disabled,
    revoked,
  ];
  const issuedSecond = event('token.issued', { ...issued.body, tokenId: 't2', keyHash: 'hash-2' });

  it.each<[string, GatewayEvent[]]>([
    ['a full history', history],
    ['a history ending in removal', [...history, removed]],
    ['two tokens interleaved', [issued, issuedSecond, renamed, revoked]],
    ['each prefix of the history', history.slice(0, 3)],
  ])('%s', (_label, events) => {
    const once = project(events, 1);
    expect(project(events, 2)).toEqual(once);
    expect(project(events, 3)).toEqual(once);
    expect(once.size).toBeGreaterThan(0);
  });

  it('ends in the expected documents', () => {
    const documents = project([...history, removed], 2);
    expect([...documents.keys()].sort()).toEqual(['tokens/t1', 'users/u1']);
    expect(documents.get('tokens/t1')).toMatchObject({ name: 'desktop', quota: 5000, revoked: true, enabled: false });
    expect(Object.keys((documents.get('users/u1') as users.UserDocument).endedSessions!).sort()).toEqual(['s1', 's2']);
  });
});

describe('usage rollup', () => {
  const requestBody: RequestCompleted['body'] = {
    requestId: 'r1',
    userId: 'u1',
    tokenId: 't1',
    endpoint: 'chat.completions',
    modelRequested: 'gpt-4o',
    modelServed: 'gpt-4o-2024-11-20',
    channelId: 'c1',
    stream: true,
    status: 200,
    errorType: null,
    errorMessage: null,
    startedAt: '2025-03-01T10:59:59.999Z',
    latencyMs: 100,
    firstTokenMs: 20,
    clientAborted: false,
  };
  const completed = (overrides: Partial<typeof requestBody> = {}) =>
    event('request.completed', { ...requestBody, ...overrides });

  it.each([
    ['2025-03-01T10:00:00.000Z', '2025-03-01T10:00:00.000Z'],
    ['2025-03-01T10:59:59.999Z', '2025-03-01T10:00:00.000Z'],
    ['2025-03-01T11:00:00.000Z', '2025-03-01T11:00:00.000Z'],
    ['2025-03-01T12:30:00+02:00', '2025-03-01T10:00:00.000Z'],
  ])('hourOf(%s) is %s', (time, hour) => {
    expect(hourOf(time)).toBe(Date.parse(hour));
    expect(hourOf(time) % HOUR_MS).toBe(0);
  });

  it.each<[string, Partial<typeof requestBody>, boolean]>([
    ['200', {}, false],
    ['299', { status: 299 }, false],
    ['399', { status: 399 }, false],
    ['400', { status: 400 }, true],
    ['502', { status: 502 }, true],
    ['200 with an in-band stream error', { errorType: 'upstream_error' }, true],
  ])('isError: %s → %s', (_label, overrides, expected) => {
    expect(isError(completed(overrides))).toBe(expected);
  });

  it('keys a request by user, token, requested model, channel and hour', () => {
    expect(rollupKeyOfRequest(completed())).toEqual({
      userId: 'u1',
      tokenId: 't1',
      model: 'gpt-4o',
      channelId: 'c1',
      hour: Date.parse('2025-03-01T10:00:00.000Z'),
    });
    const refused = completed({ userId: null, tokenId: null, modelRequested: null, channelId: null });
    expect(rollupKeyOfRequest(refused)).toMatchObject({ userId: '', tokenId: '', model: '', channelId: '' });
  });

  it('keys usage like its request, so both land in the same rollup row', () => {
    const usage = event('usage.recorded', {
      requestId: 'r1',
      userId: 'u1',
      tokenId: 't1',
      channelId: 'c1',
      model: 'gpt-4o',
      startedAt: requestBody.startedAt,
      promptTokens: 10,
      completionTokens: 5,
      cachedTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
      source: 'estimated',
      costNanoUsd: null,
      price: null,
    });
    expect(rollupKeyOfUsage(usage)).toEqual(rollupKeyOfRequest(completed()));
    expect(rollupKeyOfUsage({ ...usage, body: { ...usage.body, channelId: null } }).channelId).toBe('');
  });
});
