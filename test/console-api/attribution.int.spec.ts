/**
 * Attribution on the embedded store, through the gateway and the console API: the end user, session
 * and metadata a request names (the gateway's headers, the formats' own fields, the agents' session
 * headers, the key's defaults) land in the usage log, filter it, group the overview and make
 * sessions; a header out of bounds is a 400 in the client's format; the gateway's headers are not
 * forwarded upstream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';

let harness: Harness;
let admin: ConsoleClient;
let user: ConsoleClient;
let other: ConsoleClient;
let key: string;
let keyId: string;

const range = () =>
  `from=${new Date(Date.now() - 3_600_000).toISOString()}&to=${new Date(Date.now() + 3_600_000).toISOString()}`;

function chat(headers: Record<string, string>, extra: Record<string, unknown> = {}, apiKey = key) {
  return fetch(`${harness.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], ...extra }),
  });
}

function messages(headers: Record<string, string>, extra: Record<string, unknown> = {}) {
  return fetch(`${harness.baseUrl}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json', ...headers },
    body: JSON.stringify({
      model: 'claude-sonnet-4-5',
      max_tokens: 16,
      messages: [{ role: 'user', content: 'hi' }],
      ...extra,
    }),
  });
}

async function settle(): Promise<void> {
  await harness.runtime.publisher.flush();
  await harness.runtime.stores.sync.caughtUp();
}

async function logs(query: string, client = user) {
  const answer = await client.call('GET', `/api/usage/logs?${range()}&${query}`);
  expect(answer.status).toBe(200);
  return answer.body;
}

beforeAll(async () => {
  harness = await startHarness({
    environment: { ADMIN_EMAIL: 'root@example.com', ADMIN_PASSWORD: 'admin-password-1' },
  });
  admin = new ConsoleClient(harness.baseUrl);
  await admin.call('POST', '/api/auth/login', { email: 'root@example.com', password: 'admin-password-1' });
  user = new ConsoleClient(harness.baseUrl);
  await user.register('attribution@example.com');
  other = new ConsoleClient(harness.baseUrl);
  await other.register('someone-else@example.com');
  ({ key, id: keyId } = await user.createToken('attributed', { metadata: { env: 'prod', team: 'search' } }));

  // Session s-1: two turns, one of another end user and feature; session s-2: one turn.
  const sent = [
    await chat(
      { 'x-gateway-metadata': '{"feature":"answers","team":"growth"}', 'x-gateway-session-id': 's-1' },
      { user: 'alice' },
    ),
    await chat({ 'x-gateway-metadata': '{"feature":"answers"}', 'x-gateway-session-id': 's-1' }, { user: 'bob' }),
    await chat({ 'x-gateway-metadata': '{"feature":"summaries"}', 'x-gateway-session-id': 's-2' }, { user: 'alice' }),
    // Claude Code's own session header and Anthropic's user field.
    await messages({ 'x-claude-code-session-id': 'claude-session-9' }, { metadata: { user_id: 'carol' } }),
    // Codex's own session header; OpenAI's safety_identifier before `user`.
    await chat({ 'session-id': 'codex-session-3' }, { safety_identifier: 'dave', user: 'ignored' }),
  ];
  for (const response of sent) expect(response.status).toBe(200);
  await settle();
});
afterAll(async () => harness.stop());

describe('the usage log', () => {
  it('records the end user, session and metadata, the key defaults overridden per name by the request', async () => {
    const page = await logs('session_id=s-1');
    expect(page.total).toBe(2);
    const [second, first] = page.items;
    expect(first).toMatchObject({
      end_user: 'alice',
      session_id: 's-1',
      metadata: { env: 'prod', team: 'growth', feature: 'answers' },
    });
    expect(second).toMatchObject({ end_user: 'bob', metadata: { env: 'prod', team: 'search', feature: 'answers' } });
  });

  it('takes the agents’ session headers and each format’s user field', async () => {
    expect((await logs('session_id=claude-session-9')).items[0]).toMatchObject({
      endpoint: 'messages',
      end_user: 'carol',
    });
    expect((await logs('session_id=codex-session-3')).items[0]).toMatchObject({ end_user: 'dave' });
  });

  it('filters by end user and by metadata values, together with the other filters', async () => {
    expect((await logs('end_user=alice')).total).toBe(2);
    expect((await logs('metadata.feature=answers')).total).toBe(2);
    expect((await logs('metadata.feature=answers&end_user=alice')).total).toBe(1);
    expect((await logs('metadata.env=prod')).total).toBe(5);
    expect((await logs('metadata.env=staging')).total).toBe(0);
    expect((await logs('metadata.feature=answers&model=claude')).total).toBe(0);
  });

  it('refuses a metadata filter whose name is not a metadata name, in the console’s shape', async () => {
    const answer = await user.call('GET', `/api/usage/logs?${range()}&metadata.${'x'.repeat(65)}=1`);
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toMatch(/64/);
  });
});

describe('the overview grouped', () => {
  const overview = async (groupBy: string) => {
    const answer = await user.call('GET', `/api/usage/overview?${range()}&group_by=${groupBy}`);
    expect(answer.status).toBe(200);
    return answer.body;
  };

  it('by end user: each one’s calls, tokens and cost, summing to the totals', async () => {
    const body = await overview('end_user');
    const groups = Object.fromEntries(body.by_group.map((row: any) => [row.group, row]));
    expect(Object.keys(groups).sort()).toEqual(['alice', 'bob', 'carol', 'dave']);
    expect(groups['alice'].calls).toBe(2);
    const sum = (name: string) => body.by_group.reduce((total: number, row: any) => total + row[name], 0);
    expect(sum('calls')).toBe(body.totals.calls);
    expect(sum('total_tokens')).toBe(body.totals.total_tokens);
    expect(sum('cost_usd')).toBeCloseTo(body.totals.cost_usd, 12);
  });

  it('by session and by a metadata key, the requests without one in the null group', async () => {
    const sessions = await overview('session');
    expect(sessions.by_group.map((row: any) => row.group).sort()).toEqual([
      'claude-session-9',
      'codex-session-3',
      's-1',
      's-2',
    ]);
    const features = await overview('metadata.feature');
    const calls = Object.fromEntries(features.by_group.map((row: any) => [row.group, row.calls]));
    expect(calls).toEqual({ answers: 2, summaries: 1, null: 2 });
  });

  it('refuses a group_by it does not know', async () => {
    const answer = await user.call('GET', `/api/usage/overview?${range()}&group_by=colour`);
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toMatch(/end_user, session or metadata/);
  });
});

describe('sessions', () => {
  it('lists the sessions, the latest first or the most expensive first, in pages', async () => {
    const recent = (await user.call('GET', '/api/sessions')).body;
    expect(recent.items.map((session: any) => session.session_id)).toEqual([
      'codex-session-3',
      'claude-session-9',
      's-2',
      's-1',
    ]);
    expect(recent.items[3]).toMatchObject({ calls: 2, models: ['gpt-4o-mini'], end_users: ['alice', 'bob'] });
    const first = (await user.call('GET', '/api/sessions?limit=3')).body;
    expect(first.next_offset).toBe(3);
    const rest = (await user.call('GET', '/api/sessions?limit=3&offset=3')).body;
    expect(rest).toEqual({ items: [recent.items[3]], next_offset: null });
    const byCost = (await user.call('GET', '/api/sessions?sort=cost')).body.items;
    const costs = byCost.map((session: any) => session.cost_usd);
    expect(costs).toEqual([...costs].sort((left: number, right: number) => right - left));
    expect(costs[0]).toBeGreaterThan(0);
  });

  it('gives a session’s requests in order with their tokens, cost and errors', async () => {
    const answer = await user.call('GET', '/api/sessions/s-1');
    expect(answer.status).toBe(200);
    const session = answer.body;
    expect(session.requests.map((request: any) => request.end_user)).toEqual(['alice', 'bob']);
    expect(session.requests[0]).toMatchObject({ status: 200, error_type: null, model_requested: 'gpt-4o-mini' });
    expect(session.requests[0].started_at <= session.requests[1].started_at).toBe(true);
    expect(session.total_tokens).toBe(
      session.requests.reduce(
        (sum: number, request: any) => sum + request.prompt_tokens + request.completion_tokens,
        0,
      ),
    );
    // Channels are the operator's business.
    expect(session.channels).toBeUndefined();
    expect(session.requests[0].channel_id).toBeUndefined();
  });

  it('shows a session to its owner and to administrators only', async () => {
    expect((await other.call('GET', '/api/sessions/s-1')).status).toBe(404);
    expect((await other.call('GET', '/api/sessions')).body.items).toEqual([]);
    const seen = await admin.call('GET', '/api/sessions/s-1');
    expect(seen.status).toBe(200);
    expect(seen.body.channels).toEqual(['fake-openai']);
    expect(seen.body.requests[0].channel_name).toBe('fake-openai');
    expect((await admin.call('GET', '/api/sessions?user_id=all')).body.items).toHaveLength(4);
    expect((await admin.call('GET', '/api/sessions/no-such-session')).status).toBe(404);
  });
});

describe('the gateway', () => {
  it('forwards a same-format request without its own headers, the body as the client wrote it', async () => {
    harness.upstream.reset();
    const body = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], user: 'erin', extra_field: 1 };
    const response = await fetch(`${harness.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'x-gateway-metadata': '{"feature":"forwarding"}',
        'x-gateway-session-id': 's-forward',
      },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    const forwarded = harness.upstream.requests.at(-1)!;
    expect(Object.keys(forwarded.headers).filter((name) => name.startsWith('x-gateway'))).toEqual([]);
    expect(forwarded.body).toMatchObject(body);
  });

  it('refuses a metadata header out of bounds with a 400 in the client’s format', async () => {
    const many = JSON.stringify(Object.fromEntries(Array.from({ length: 17 }, (_, index) => [`k${index}`, 'v'])));
    const cases: Array<[string, RegExp]> = [
      [many, /17 keys; at most 16/],
      ['not json', /not valid JSON/],
      ['["a"]', /JSON object of string values/],
      ['{"n":1}', /must be a string/],
      [JSON.stringify({ ['x'.repeat(65)]: 'v' }), /1 to 64/],
      [JSON.stringify({ long: 'v'.repeat(257) }), /257 characters; at most 256/],
    ];
    for (const [header, message] of cases) {
      const openai = await chat({ 'x-gateway-metadata': header });
      expect(openai.status).toBe(400);
      const error = (await openai.json()).error;
      expect(error).toMatchObject({ type: 'invalid_request_error', param: 'x-gateway-metadata' });
      expect(error.message).toMatch(message);
    }
    const anthropic = await messages({ 'x-gateway-metadata': many });
    expect(anthropic.status).toBe(400);
    expect(await anthropic.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    const session = await chat({ 'x-gateway-session-id': 's'.repeat(257) });
    expect(session.status).toBe(400);
    expect((await session.json()).error.message).toMatch(/x-gateway-session-id.*256/);
  });

  it('refuses a request whose metadata with the key’s defaults passes 16 names', async () => {
    const fifteen = JSON.stringify(Object.fromEntries(Array.from({ length: 15 }, (_, index) => [`k${index}`, 'v'])));
    const response = await chat({ 'x-gateway-metadata': fifteen });
    expect(response.status).toBe(400);
    expect((await response.json()).error.message).toMatch(/default metadata.*17 metadata keys/);
  });
});

describe('key default metadata', () => {
  it('is set on create and changed or cleared on update', async () => {
    const listed = (await user.call('GET', '/api/tokens')).body.items.find((token: any) => token.id === keyId);
    expect(listed.metadata).toEqual({ env: 'prod', team: 'search' });
    const changed = await user.call('PATCH', `/api/tokens/${keyId}`, { metadata: { env: 'staging' } });
    expect(changed.status).toBe(200);
    expect(changed.body.metadata).toEqual({ env: 'staging' });
    expect((await chat({})).status).toBe(200);
    await settle();
    expect((await logs('metadata.env=staging')).total).toBe(1);
    const cleared = await user.call('PATCH', `/api/tokens/${keyId}`, { metadata: null });
    expect(cleared.body.metadata).toBeNull();
    const refused = await user.call('PATCH', `/api/tokens/${keyId}`, { metadata: { 'bad name': 'x' } });
    expect(refused.status).toBe(400);
  });
});
