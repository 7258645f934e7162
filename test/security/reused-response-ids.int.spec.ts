/**
 * A native Responses upstream that reuses its response ids (the fake answers every native call with
 * one id): the second reply under an id the gateway already keeps, another account's or the same
 * one's, gets an id of the gateway's own, in the reply, in every event of a stream and in what is
 * kept. It can be fetched and continued (the conversation expanded from the gateway's copy, never
 * the upstream's id, which may hold someone else's turn), and the first owner's response is untouched.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';

const NATIVE = 'gpt-4.1-mini';

type Turn = { id: string; output_text: string; store: boolean; warnings: string | null };

async function client(harness: Harness, email: string): Promise<OpenAI> {
  const console = new ConsoleClient(harness.baseUrl);
  await console.register(email);
  const key = (await console.createToken('reused ids')).key;
  return new OpenAI({ baseURL: `${harness.baseUrl}/v1`, apiKey: key, maxRetries: 0 });
}

async function turn(openai: OpenAI, stream: boolean, body: { input: string; previous_response_id?: string }) {
  const request = { model: NATIVE, ...body };
  if (!stream) {
    const { data, response } = await openai.responses.create(request).withResponse();
    return { ...data, warnings: response.headers.get('x-gateway-warnings') } as unknown as Turn;
  }
  const events = openai.responses.stream(request);
  const ids: string[] = [];
  events.on('event', (event) => {
    if ('response' in event && event.response) ids.push(event.response.id);
  });
  // The SDK itself refuses a stream whose lifecycle events change id.
  const final = await events.finalResponse();
  expect(new Set(ids), 'one id in every lifecycle event').toEqual(new Set([final.id]));
  return { ...final, warnings: null } as unknown as Turn;
}

describe.each([false, true])('a native upstream that reuses response ids (stream: %s)', (stream) => {
  let harness: Harness;
  let alice: OpenAI;
  let bob: OpenAI;
  /** Alice's first response, kept under the upstream's id */
  let aliceFirst = '';

  beforeAll(async () => {
    harness = await startHarness({
      extraChannels: [{ name: 'openai-responses', type: 'openai', models: [NATIVE], responsesApi: true }],
    });
    alice = await client(harness, `alice-reused-${stream}@example.com`);
    bob = await client(harness, `bob-reused-${stream}@example.com`);
  });
  afterAll(async () => harness?.stop());

  it("gives another account's reply under a kept id the gateway's own id, which works for that account", async () => {
    const first = await turn(alice, stream, { input: 'Alice turn' });
    aliceFirst = first.id;
    const second = await turn(bob, stream, { input: 'Bob turn' });
    expect(second.id).not.toBe(first.id);
    expect(second.id).toMatch(/^resp_/);
    expect(second.store).toBe(true);
    if (!stream) expect(second.warnings).toContain('response id replaced');

    const fetched = await bob.responses.retrieve(second.id);
    expect(fetched).toMatchObject({ id: second.id, output_text: second.output_text });
    // Alice's response is still hers, under the upstream's id.
    expect((await alice.responses.retrieve(first.id)).id).toBe(first.id);
    await expect(bob.responses.retrieve(first.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);

    harness.upstream.reset();
    const next = await turn(bob, stream, { input: 'Bob again', previous_response_id: second.id });
    expect(next.id).not.toBe(second.id);
    const sent = harness.upstream.requests[0]!.body as { input: unknown; previous_response_id?: unknown };
    // The upstream's copy under that id may be Alice's: the conversation goes from the gateway's copy.
    expect(sent.previous_response_id).toBeUndefined();
    const wire = JSON.stringify(sent.input);
    expect(wire).toContain('Bob turn');
    expect(wire).toContain('Bob again');
    expect(wire).not.toContain('Alice turn');
  });

  it("gives the same account's second reply under a kept id its own id, so the first stays as it was", async () => {
    const again = await turn(alice, stream, { input: 'Alice once more' });
    expect(again.id).not.toBe(aliceFirst);
    expect((await alice.responses.retrieve(aliceFirst)).id).toBe(aliceFirst);
    const kept = await alice.responses.retrieve(again.id);
    expect(kept.id).toBe(again.id);
    expect(kept.output_text).toBe(again.output_text);
    expect(harness.upstream.requests.at(-1)!.body).toMatchObject({ input: 'Alice once more' });
  });
});
