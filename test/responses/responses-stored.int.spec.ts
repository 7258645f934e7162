/**
 * Stored Responses with the official `openai` client, embedded store: `store` (the default) keeps a
 * reply, `responses.retrieve` returns it and `responses.delete` removes it; `previous_response_id`
 * continues it on an openai channel (converted: the upstream receives the earlier turns), an
 * anthropic channel (thinking signatures kept across the turn) and a native `responses_api` channel
 * (the id passed through when that channel made the turn, the conversation expanded otherwise),
 * streamed and not; another account's id, a deleted one and an unknown one answer the same 404;
 * `store: false` keeps nothing.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORED_RESPONSE_LIMIT_BYTES } from '../../gateway/relay/response-keeper.ts';
import { loadJsonFixture } from '../fake-upstream/fixtures.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness, UPSTREAM_KEY_OPENAI } from '../support/gateway-harness.ts';

const NATIVE = 'gpt-4.1-mini';
const ECHO = 'echo-model';

/** An openai-format upstream whose answer repeats the key it was sent: hostile, or just careless. */
function startEchoUpstream(): Promise<Server> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const content = `You sent ${request.headers.authorization}`;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          id: 'chatcmpl-echo',
          object: 'chat.completion',
          created: 1,
          model: ECHO,
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
        }),
      );
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

interface StoredGateway {
  harness: Harness;
  alice: OpenAI;
  bob: OpenAI;
}

let echo: Server;

async function startStoredGateway(): Promise<StoredGateway> {
  const echoUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}/v1`;
  const harness = await startHarness({
    environment: { ALLOW_PRIVATE_UPSTREAMS: 'true' },
    extraChannels: [
      { name: 'openai-responses', type: 'openai', models: [NATIVE], responsesApi: true },
      { name: 'echo', type: 'openai', models: [ECHO], baseUrl: echoUrl },
    ],
  });
  const client = async (email: string) => {
    const console = new ConsoleClient(harness.baseUrl);
    await console.register(email);
    const key = (await console.createToken('stored responses')).key;
    return new OpenAI({ baseURL: `${harness.baseUrl}/v1`, apiKey: key, maxRetries: 0 });
  };
  return { harness, alice: await client('alice-stored@example.com'), bob: await client('bob-stored@example.com') };
}

type TurnRequest = Omit<OpenAI.Responses.ResponseCreateParamsNonStreaming, 'stream'>;

async function create(openai: OpenAI, stream: boolean, body: TurnRequest) {
  if (!stream) return openai.responses.create(body);
  return openai.responses.stream(body).finalResponse();
}

/** What a rejected call threw, for the checks of its error. */
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => error as InstanceType<typeof OpenAI.APIError>,
  );

/** The SDK's finalResponse() adds `parsed` to each text part; the wire has none. */
const withoutParsed = (value: unknown) =>
  JSON.parse(JSON.stringify(value, (key, item) => (key === 'parsed' ? undefined : item)));

/** OpenAI's deletion answer, as the SDK hands it back. */
const deletion = (id: string) => expect.objectContaining({ id, object: 'response', deleted: true });

const roles = (messages: Array<{ role: string }>) => messages.map((message) => message.role);

let converted: StoredGateway;

beforeAll(async () => {
  echo = await startEchoUpstream();
  converted = await startStoredGateway();
});
afterAll(async () => {
  await converted?.harness.stop();
  echo?.close();
});

const kinds = [
  { kind: 'openai', model: 'gpt-4o-mini' },
  { kind: 'anthropic', model: 'claude-sonnet-4-5' },
] as const;

describe.each(kinds)('a converted $kind channel', ({ kind, model }) => {
  it.each([false, true])('stores, retrieves, continues and deletes (stream: %s)', async (stream) => {
    const { harness, alice } = converted;
    harness.upstream.reset();
    const first = await create(alice, stream, { model, input: 'Say hello', instructions: 'Be brief.' });
    expect((first as unknown as { store: boolean }).store).toBe(true);
    const retrieved = await alice.responses.retrieve(first.id);
    expect(retrieved).toMatchObject({ id: first.id, object: 'response', status: 'completed', model: first.model });
    expect(retrieved.output).toEqual(withoutParsed(first.output));
    expect(retrieved.output_text).toBe(first.output_text);
    expect(retrieved.usage).toEqual(first.usage);

    const second = await create(alice, stream, { model, input: 'And again?', previous_response_id: first.id });
    expect(second.previous_response_id).toBe(first.id);
    expect(second.id).not.toBe(first.id);
    const sent = harness.upstream.requests.at(-1)!.body as { messages: Array<{ role: string }>; system?: unknown };
    // The earlier turn, then this one; the earlier instructions are not carried over (as OpenAI does).
    expect(roles(sent.messages)).toEqual(['user', 'assistant', 'user']);
    const wire = JSON.stringify(sent.messages);
    for (const text of ['Say hello', first.output_text, 'And again?'])
      expect(wire).toContain(JSON.stringify(text).slice(1, -1));
    expect(JSON.stringify(sent)).not.toContain('Be brief.');

    // A third turn reaches back through both.
    await create(alice, stream, { model, input: 'Once more', previous_response_id: second.id });
    const third = harness.upstream.requests.at(-1)!.body as { messages: Array<{ role: string }> };
    expect(roles(third.messages)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);

    expect(await alice.responses.delete(first.id)).toEqual(deletion(first.id));
    const gone = await failure(alice.responses.retrieve(first.id));
    expect(gone).toBeInstanceOf(OpenAI.NotFoundError);
    const continued = await failure(alice.responses.create({ model, input: 'x', previous_response_id: first.id }));
    expect(continued).toBeInstanceOf(OpenAI.NotFoundError);
    expect(continued!.error).toMatchObject({ type: 'invalid_request_error', param: 'previous_response_id' });
    // The deleted turn ends the chain: the second turn goes on alone.
    await create(alice, stream, { model, input: 'Last', previous_response_id: second.id });
    expect(roles((harness.upstream.requests.at(-1)!.body as { messages: Array<{ role: string }> }).messages)).toEqual([
      'user',
      'assistant',
      'user',
    ]);
    void kind;
  });
});

describe('an anthropic channel with thinking', () => {
  it.each([false, true])('sends the thinking block back with its signature (stream: %s)', async (stream) => {
    const { harness, alice } = converted;
    harness.upstream.reset();
    harness.upstream.next('thinking');
    const first = await create(alice, stream, {
      model: 'claude-sonnet-4-5',
      input: 'What is 17 * 23?',
      reasoning: { effort: 'low', summary: 'auto' },
    });
    const reasoning = first.output.find((item) => item.type === 'reasoning') as OpenAI.Responses.ResponseReasoningItem;
    expect(reasoning.encrypted_content).toMatch(/^Eq/);
    await create(alice, stream, {
      model: 'claude-sonnet-4-5',
      input: 'And times 2?',
      reasoning: { effort: 'low', summary: 'auto' },
      previous_response_id: first.id,
    });
    const sent = harness.upstream.requests.at(-1)!.body as { messages: Array<{ role: string; content: unknown }> };
    expect(roles(sent.messages)).toEqual(['user', 'assistant', 'user']);
    const thinking = (sent.messages[1]!.content as Array<Record<string, unknown>>)[0];
    expect(thinking).toMatchObject({ type: 'thinking', signature: reasoning.encrypted_content });
    if (!stream) {
      const fixture = (loadJsonFixture('anthropic-thinking').body as any).content[0];
      expect(thinking).toEqual({ type: 'thinking', thinking: fixture.thinking, signature: fixture.signature });
    }
  });

  it('leaves an anthropic signature out when the conversation goes on at an openai channel', async () => {
    const { harness, alice } = converted;
    harness.upstream.reset();
    harness.upstream.next('thinking');
    const first = await alice.responses.create({
      model: 'claude-sonnet-4-5',
      input: 'What is 17 * 23?',
      reasoning: { effort: 'low' },
    });
    await alice.responses.create({ model: 'gpt-4o-mini', input: 'Thanks', previous_response_id: first.id });
    const sent = harness.upstream.requests.at(-1)!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(JSON.stringify(sent.body)).not.toContain('EqQB');
    expect(roles((sent.body as { messages: Array<{ role: string }> }).messages)).toEqual(['user', 'assistant', 'user']);
  });
});

describe('who may see a stored response', () => {
  it('another account gets the 404 of an unknown id, on GET, DELETE and previous_response_id', async () => {
    const { harness, alice, bob } = converted;
    const mine = await alice.responses.create({ model: 'gpt-4o-mini', input: 'Private' });
    harness.upstream.reset();
    for (const [id, caller] of [
      [mine.id, bob],
      ['resp_unknown', alice],
    ] as const) {
      const got = await failure(caller.responses.retrieve(id));
      const deleted = await failure(caller.responses.delete(id));
      const continued = await failure(
        caller.responses.create({ model: 'gpt-4o-mini', input: 'x', previous_response_id: id }),
      );
      for (const error of [got, deleted, continued]) {
        expect(error).toBeInstanceOf(OpenAI.NotFoundError);
        expect(error!.error).toMatchObject({ type: 'invalid_request_error', code: 'response_not_found' });
      }
      expect(got!.error).toMatchObject({ param: 'response_id' });
      expect(continued!.error).toMatchObject({ param: 'previous_response_id' });
    }
    expect(harness.upstream.requests).toHaveLength(0);
    // Bob's delete did nothing.
    expect((await alice.responses.retrieve(mine.id)).output_text).toBe(mine.output_text);
    const anonymous = await fetch(`${harness.baseUrl}/v1/responses/${mine.id}`);
    expect(anonymous.status).toBe(401);
  });

  it('answers a turn over the size limit but does not keep it, and says so', async () => {
    const { alice } = converted;
    const { data, response } = await alice.responses
      .create({ model: 'gpt-4o-mini', input: 'x'.repeat(STORED_RESPONSE_LIMIT_BYTES) })
      .withResponse();
    expect(data.status).toBe('completed');
    expect(response.headers.get('x-gateway-warnings')).toContain('response not stored');
    expect(await failure(alice.responses.retrieve(data.id))).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('keeps no upstream key an upstream echoed, in the log or in what GET returns', async () => {
    const { harness, alice } = converted;
    const response = await alice.responses.create({ model: ECHO, input: 'Echo' });
    const kept = await alice.responses.retrieve(response.id);
    expect(kept.output_text).toContain('[redacted]');
    expect(JSON.stringify(kept)).not.toContain(UPSTREAM_KEY_OPENAI);
    const database = new Database(`${harness.dataDirectory}/gateway.db`, { readonly: true });
    try {
      const logged = database.prepare("SELECT payload FROM events WHERE type = 'response.stored'").pluck().all();
      expect(logged.length).toBeGreaterThan(0);
      for (const payload of logged) expect(String(payload)).not.toContain(UPSTREAM_KEY_OPENAI.slice(0, 16));
    } finally {
      database.close();
    }
  });

  it.each([false, true])('store: false keeps nothing (stream: %s)', async (stream) => {
    const { alice } = converted;
    const response = await create(alice, stream, { model: 'gpt-4o-mini', input: 'Forget me', store: false });
    expect((response as unknown as { store: boolean }).store).toBe(false);
    expect(await failure(alice.responses.retrieve(response.id))).toBeInstanceOf(OpenAI.NotFoundError);
  });
});

describe.each([false, true])('a native responses_api channel (stream: %s)', (stream) => {
  // The fake upstream answers every native call with one id: each mode gets a gateway of its own.
  let native: StoredGateway;
  beforeAll(async () => {
    native = await startStoredGateway();
  });
  afterAll(async () => native?.harness.stop());

  it('passes previous_response_id through for a turn it made, stores, retrieves and deletes', async () => {
    const { harness, alice } = native;
    const first = await create(alice, stream, { model: NATIVE, input: 'Hello' });
    const retrieved = await alice.responses.retrieve(first.id);
    expect(retrieved.output).toEqual(withoutParsed(first.output));
    expect(retrieved.output_text).toBe(first.output_text);
    harness.upstream.reset();
    await create(alice, stream, { model: NATIVE, input: 'Again', previous_response_id: first.id });
    expect(harness.upstream.requests[0]!.body).toMatchObject({ previous_response_id: first.id, input: 'Again' });
    expect(await alice.responses.delete(first.id)).toEqual(deletion(first.id));
    expect(await failure(alice.responses.retrieve(first.id))).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('gets the conversation expanded into input for a turn another channel made', async () => {
    const { harness, alice } = native;
    const earlier = await create(alice, stream, { model: 'gpt-4o-mini', input: 'Say hello' });
    harness.upstream.reset();
    await create(alice, stream, { model: NATIVE, input: 'And again?', previous_response_id: earlier.id });
    const sent = harness.upstream.requests[0]!;
    expect(sent.path).toBe('/v1/responses');
    const body = sent.body as { input: Array<Record<string, unknown>>; previous_response_id?: unknown };
    expect(body.previous_response_id).toBeUndefined();
    expect(body.input[0]).toEqual({ type: 'message', role: 'user', content: 'Say hello' });
    expect(body.input[1]).toMatchObject({ type: 'message', role: 'assistant' });
    expect(body.input.at(-1)).toEqual({ type: 'message', role: 'user', content: 'And again?' });
  });
});
