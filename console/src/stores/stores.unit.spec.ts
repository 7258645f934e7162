// @vitest-environment happy-dom
import { createPinia, setActivePinia } from 'pinia';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeApi, reply, sampleToken } from '../testing/fake-api.ts';
import { useAuthStore } from './auth.ts';
import { useChannelsStore } from './channels.ts';
import { useTokensStore } from './tokens.ts';
import { useUsageStore } from './usage.ts';
import { useUsageLogStore } from './usage-log.ts';
import { useUsersStore } from './users.ts';

const me = { id: 'u1', email: 'ada@example.com', name: 'ada', role: 'user' as const };
const notSignedIn = reply(401, { error: { code: 'not_signed_in', message: 'Sign in first' } });

beforeEach(() => setActivePinia(createPinia()));
afterEach(() => vi.unstubAllGlobals());

describe('useAuthStore', () => {
  it('is signed out when /me answers 401, signed in after sign-in', async () => {
    fakeApi({ 'GET /me': () => notSignedIn, 'POST /auth/login': () => me });
    const auth = useAuthStore();
    await auth.fetchMe();
    expect(auth.ready).toBe(true);
    expect(auth.user).toBeNull();
    await auth.signIn({ email: 'ada@example.com', password: 'pw' });
    expect(auth.user).toEqual(me);
    expect(auth.isAdmin).toBe(false);
  });

  it('flags an expired session only when someone was signed in, and forgets their data', async () => {
    fakeApi({ 'GET /me': () => me, 'GET /tokens': () => ({ items: [sampleToken()] }) });
    const auth = useAuthStore();
    expect(auth.expireSession()).toBe(false);
    expect(auth.sessionExpired).toBe(false);
    await auth.fetchMe();
    const tokens = useTokensStore();
    await tokens.fetchTokens();
    expect(auth.expireSession()).toBe(true);
    expect(auth.sessionExpired).toBe(true);
    expect(tokens.tokens).toEqual([]);
  });

  it('signs out even when the server cannot be reached, and resets every store', async () => {
    fakeApi({ 'POST /auth/login': () => me });
    const auth = useAuthStore();
    await auth.signIn({ email: 'ada@example.com', password: 'pw' });
    useUsageStore().scope = 'all';
    vi.stubGlobal('fetch', vi.fn().mockRejectedValue(new TypeError('offline')));
    await auth.signOut();
    expect(auth.user).toBeNull();
    expect(useUsageStore().scope).toBe('self');
  });
});

describe('useTokensStore', () => {
  it('lists, creates (keeping no plaintext key), renames, disables and revokes', async () => {
    const { calls } = fakeApi({
      'GET /tokens': () => ({ items: [sampleToken()] }),
      'POST /tokens': () => reply(201, { ...sampleToken({ id: 't2', name: 'ci' }), key: 'sk-secret' }),
      'PATCH /tokens/t1': (call) => sampleToken(call.body as Record<string, unknown>),
      'DELETE /tokens/t2': () => sampleToken({ id: 't2', name: 'ci', status: 'revoked' }),
    });
    const store = useTokensStore();
    await store.fetchTokens();
    expect(store.tokens.map((token) => token.id)).toEqual(['t1']);
    const created = await store.createToken({ name: 'ci' });
    expect(created.key).toBe('sk-secret');
    expect(JSON.stringify(store.tokens)).not.toContain('sk-secret');
    expect(store.tokens[0]!.id).toBe('t2');
    await store.renameToken('t1', 'desk');
    await store.setTokenEnabled('t1', false);
    expect(calls.filter((call) => call.method === 'PATCH').map((call) => call.body)).toEqual([
      { name: 'desk' },
      { enabled: false },
    ]);
    await store.revokeToken('t2');
    expect(store.tokens.find((token) => token.id === 't2')!.status).toBe('revoked');
  });

  it('keeps the load error for the page to show', async () => {
    fakeApi({ 'GET /tokens': () => reply(500, { error: { code: 'internal_error', message: 'boom' } }) });
    const store = useTokensStore();
    await store.fetchTokens();
    expect(store.error?.message).toBe('boom');
    expect(store.loading).toBe(false);
  });
});

describe('useUsageStore', () => {
  it('asks for the chosen range, bucket size and scope', async () => {
    const { calls } = fakeApi({ 'GET /usage/overview': () => ({ totals: { calls: 1 } }) });
    const usage = useUsageStore();
    usage.selection = { preset: '7d', customFrom: '', customTo: '' };
    usage.granularity = 'hour';
    usage.scope = 'all';
    await usage.fetchOverview();
    const query = calls[0]!.query;
    expect(Date.parse(query.get('to')!) - Date.parse(query.get('from')!)).toBe(7 * 24 * 3_600_000);
    expect(query.get('granularity')).toBe('hour');
    expect(query.get('user_id')).toBe('all');
    expect(usage.overview).toEqual({ totals: { calls: 1 } });
  });

  it('lets only the latest of overlapping fetches land', async () => {
    let answer = 0;
    fakeApi({ 'GET /usage/overview': () => ({ n: ++answer }) });
    const usage = useUsageStore();
    await Promise.all([usage.fetchOverview(), usage.fetchOverview()]);
    expect(usage.overview).toEqual({ n: 2 });
    expect(usage.loading).toBe(false);
  });
});

describe('useUsageLogStore', () => {
  const row = (id: string) => ({ request_id: id, started_at: '2025-03-01T10:00:00.000Z', status: 200 });

  it('pages forward and back with cursors, and sends the filters', async () => {
    const { calls } = fakeApi({
      'GET /usage/logs': (call) => {
        const cursor = call.query.get('cursor');
        if (!cursor) return { items: [row('a')], next_cursor: 'c2' };
        if (cursor === 'c2') return { items: [row('b')], next_cursor: 'c3' };
        return { items: [row('c')], next_cursor: null };
      },
    });
    const log = useUsageLogStore();
    log.filters = { ...log.filters, tokenId: 't1', model: ' gpt-4o ', status: 'error' };
    await log.search();
    expect(calls[0]!.query.get('token_id')).toBe('t1');
    expect(calls[0]!.query.get('model')).toBe('gpt-4o');
    expect(calls[0]!.query.get('status')).toBe('error');
    await log.nextPage();
    await log.nextPage();
    expect(log.page).toBe(3);
    expect(log.items[0]!.request_id).toBe('c');
    expect(log.nextCursor).toBeNull();
    await log.previousPage();
    expect(log.page).toBe(2);
    expect(log.items[0]!.request_id).toBe('b');
    expect(calls[calls.length - 1]!.query.get('from')).toBe(calls[0]!.query.get('from'));
  });

  it('exports every page of the filtered rows as CSV', async () => {
    fakeApi({
      'GET /usage/logs': (call) =>
        call.query.get('cursor') ? { items: [row('b')], next_cursor: null } : { items: [row('a')], next_cursor: 'x' },
    });
    const log = useUsageLogStore();
    await log.search();
    const { csv, count, capped } = await log.exportCsv();
    expect(count).toBe(2);
    expect(capped).toBe(false);
    expect(csv.trim().split('\r\n')).toHaveLength(3);
  });
});

describe('admin stores', () => {
  it('keeps channel test results per channel and removes deleted channels', async () => {
    const channel = { id: 'c1', name: 'main', enabled: true };
    fakeApi({
      'GET /channels': () => ({ items: [channel] }),
      'POST /channels/c1/test': () => ({ ok: true, status: 200, latency_ms: 5, model: 'm', error: null }),
      'PATCH /channels/c1': () => ({ ...channel, enabled: false }),
      'DELETE /channels/c1': () => reply(204),
    });
    const store = useChannelsStore();
    await store.fetchChannels();
    expect((await store.testChannel('c1')).ok).toBe(true);
    expect(store.testResults['c1']?.latency_ms).toBe(5);
    expect(store.testing['c1']).toBe(false);
    await store.updateChannel('c1', { enabled: false });
    expect(store.channels[0]!.enabled).toBe(false);
    await store.deleteChannel('c1');
    expect(store.channels).toEqual([]);
  });

  it('updates a user in place', async () => {
    const user = { ...me, disabled: false, created_at: '2025-01-01T00:00:00.000Z' };
    fakeApi({
      'GET /users': () => ({ items: [user] }),
      'PATCH /users/u1': (call) => ({ ...user, ...(call.body as object) }),
    });
    const store = useUsersStore();
    await store.fetchUsers();
    await store.updateUser('u1', { disabled: true });
    expect(store.users[0]!.disabled).toBe(true);
    store.$reset();
    expect(store.users).toEqual([]);
  });
});
