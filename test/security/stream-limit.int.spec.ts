/**
 * A stream's total size is bounded (`UPSTREAM_STREAM_LIMIT_BYTES`): an upstream that streams without
 * end is cut off at the limit, and the client's stream ends with an error in its own format (chat's
 * `data: {"error": …}`, Anthropic's `event: error`, a Responses stream's `error` then
 * `response.failed` naming the response it opened), recorded as `upstream_stream_too_large`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';
import { loggedEvents } from '../support/logged-events.ts';
import { type ScriptedUpstream, startScriptedUpstream } from '../support/scripted-upstream.ts';

const LIMIT = 64 * 1024;
/** Frames of about 1 KB each: 200 of them are three times the limit. */
const FRAMES = 200;
const WORDS = 'many words '.repeat(90);

function chatFrames(): string[] {
  const chunk = (delta: Record<string, unknown>) =>
    `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'endless', choices: [{ index: 0, delta, finish_reason: null }] })}`;
  return [
    chunk({ role: 'assistant', content: '' }),
    ...Array.from({ length: FRAMES }, () => chunk({ content: WORDS })),
  ];
}

function anthropicFrames(): string[] {
  const event = (type: string, data: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}`;
  return [
    event('message_start', {
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'endless',
        content: [],
        usage: { input_tokens: 5, output_tokens: 1 },
      },
    }),
    event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    ...Array.from({ length: FRAMES }, () =>
      event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: WORDS } }),
    ),
  ];
}

function responsesFrames(): string[] {
  const response = {
    id: 'resp_native_1',
    object: 'response',
    created_at: 1,
    status: 'in_progress',
    model: 'endless',
    output: [],
  };
  const event = (type: string, data: Record<string, unknown>, sequence: number) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence, ...data })}`;
  return [
    event('response.created', { response }, 0),
    ...Array.from({ length: FRAMES }, (_, index) =>
      event(
        'response.output_text.delta',
        { item_id: 'msg_1', output_index: 0, content_index: 0, delta: WORDS },
        index + 1,
      ),
    ),
  ];
}

let harness: Harness;
let upstream: ScriptedUpstream;
let key: string;

beforeAll(async () => {
  upstream = await startScriptedUpstream(({ path }) => {
    if (path === '/v1/messages') return { status: 200, frames: anthropicFrames() };
    if (path === '/v1/responses') return { status: 200, frames: responsesFrames() };
    return { status: 200, frames: chatFrames() };
  });
  harness = await startHarness({
    environment: { UPSTREAM_STREAM_LIMIT_BYTES: String(LIMIT), UPSTREAM_MAX_ATTEMPTS: '1' },
    extraChannels: [
      { name: 'endless-openai', type: 'openai', models: ['endless'], baseUrl: `${upstream.url}/v1` },
      { name: 'endless-anthropic', type: 'anthropic', models: ['endless-claude'], baseUrl: upstream.url },
      {
        name: 'endless-native',
        type: 'openai',
        models: ['endless-native'],
        baseUrl: `${upstream.url}/v1`,
        responsesApi: true,
      },
    ],
  });
  const client = new ConsoleClient(harness.baseUrl);
  await client.register('stream-limit@example.com');
  key = (await client.createToken('streams')).key;
});
afterAll(async () => {
  await harness.stop();
  await upstream.close();
});

async function stream(path: string, body: Record<string, unknown>): Promise<{ text: string; requestId: string }> {
  const response = await fetch(`${harness.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'x-api-key': key },
    body: JSON.stringify({ ...body, stream: true }),
  });
  expect(response.status).toBe(200);
  return { text: await response.text(), requestId: response.headers.get('x-request-id')! };
}

async function recorded(requestId: string): Promise<any> {
  await harness.runtime.publisher.flush();
  return loggedEvents(harness.dataDirectory).find(
    (event) => event.type === 'request.completed' && event.body.requestId === requestId,
  )!.body;
}

/** The `data:` payloads of the SSE events of `type` (by `event:` line, or none given). */
function events(text: string): Array<{ event: string | null; data: any }> {
  return text
    .split('\n\n')
    .filter((block) => block.includes('data:'))
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? null;
      const data = /^data: (.*)$/m.exec(block)![1]!;
      return { event, data: data === '[DONE]' ? data : JSON.parse(data) };
    });
}

describe('a stream over UPSTREAM_STREAM_LIMIT_BYTES', () => {
  it('ends a chat stream with an OpenAI error frame, recorded as such', async () => {
    const { text, requestId } = await stream('/v1/chat/completions', {
      model: 'endless',
      messages: [{ role: 'user', content: 'go on' }],
    });
    expect(text.length).toBeLessThan(2 * LIMIT);
    const last = events(text).at(-1)!;
    expect(last.data.error.code).toBe('upstream_stream_too_large');
    expect(last.data.error.message).toContain('UPSTREAM_STREAM_LIMIT_BYTES');
    const record = await recorded(requestId);
    expect(record.status).toBe(200);
    expect(record.errorType).toBe('upstream_stream_too_large');
  });

  it('ends an Anthropic stream with `event: error`', async () => {
    const { text, requestId } = await stream('/v1/messages', {
      model: 'endless-claude',
      max_tokens: 100_000,
      messages: [{ role: 'user', content: 'go on' }],
    });
    const last = events(text).at(-1)!;
    expect(last.event).toBe('error');
    expect(last.data.type).toBe('error');
    expect(last.data.error.message).toContain('UPSTREAM_STREAM_LIMIT_BYTES');
    expect((await recorded(requestId)).errorType).toBe('upstream_stream_too_large');
  });

  it('ends a converted Responses stream with `error` and `response.failed` naming its response', async () => {
    const { text, requestId } = await stream('/v1/responses', { model: 'endless', input: 'go on' });
    const all = events(text);
    const created = all.find((each) => each.event === 'response.created')!.data.response;
    const [error, failed] = all.slice(-2);
    expect(error!.event).toBe('error');
    expect(error!.data.code).toBe('upstream_stream_too_large');
    expect(failed!.event).toBe('response.failed');
    expect(failed!.data.response).toMatchObject({
      id: created.id,
      status: 'failed',
      error: { code: 'upstream_stream_too_large' },
    });
    expect(all.some((each) => each.event === 'response.completed')).toBe(false);
    expect((await recorded(requestId)).errorType).toBe('upstream_stream_too_large');
  });

  it('ends a native Responses stream with `error` and `response.failed` naming the upstream’s response', async () => {
    const { text, requestId } = await stream('/v1/responses', { model: 'endless-native', input: 'go on' });
    const [error, failed] = events(text).slice(-2);
    expect(error!.event).toBe('error');
    expect(failed!.event).toBe('response.failed');
    expect(failed!.data.response).toMatchObject({ id: 'resp_native_1', status: 'failed' });
    expect(failed!.data.sequence_number).toBeGreaterThan(error!.data.sequence_number);
    expect((await recorded(requestId)).errorType).toBe('upstream_stream_too_large');
  });
});
