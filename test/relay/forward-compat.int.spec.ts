/**
 * Forward compatibility with the agent clients' newest requests, replayed from recorded-shape bodies
 * (fixtures/): a Claude Code 2.1.328 turn (a `system` message in the conversation under the
 * per-turn-control beta, adaptive thinking, `output_config.effort`, `context_management`, a server
 * tool, fields on tools and blocks the gateway does not know, `?beta=true`) and a Codex 0.169.0
 * Responses body (a `namespace` tool, `web_search`, `include`, `prompt_cache_key`).
 *
 * On a channel of the client's own format the upstream receives the body exactly as the client wrote
 * it, with the query string and the beta header. On a converted channel what has an equivalent is
 * mapped (the system message in place, the effort, the namespace's functions flattened and their
 * calls named back), and what has none is dropped and named in `x-gateway-warnings`.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseFrames } from '../conversion/support/sse.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';

const fixture = (name: string) => readFileSync(new URL(`fixtures/${name}.json`, import.meta.url), 'utf8');
const claudeCodeTurn = JSON.parse(fixture('claude-code-2.1.328-turn')) as Record<string, unknown>;
const codexTurn = JSON.parse(fixture('codex-0.169.0-responses')) as Record<string, unknown>;
const BETAS =
  'claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27,per-turn-control-2026-07-01';

let harness: Harness;
let key: string;

beforeAll(async () => {
  harness = await startHarness({
    extraChannels: [{ name: 'native-responses', type: 'openai', models: ['gpt-5-codex'], responsesApi: true }],
  });
  const console = new ConsoleClient(harness.baseUrl);
  await console.register('forward-compat@example.com');
  key = (await console.createToken('agents')).key;
});
afterAll(async () => harness.stop());
beforeEach(() => harness.upstream.reset());

/** As Claude Code sends it: `?beta=true`, its betas and version, the body's own bytes. */
function claudeCode(body: Record<string, unknown>) {
  return fetch(`${harness.baseUrl}/v1/messages?beta=true`, {
    method: 'POST',
    headers: {
      'x-api-key': key,
      'anthropic-version': '2023-06-01',
      'anthropic-beta': BETAS,
      'content-type': 'application/json',
      'x-app': 'cli',
    },
    body: JSON.stringify(body),
  });
}

function codex(body: Record<string, unknown>) {
  return fetch(`${harness.baseUrl}/v1/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', originator: 'codex_cli_rs' },
    body: JSON.stringify(body),
  });
}

const lastSent = () => harness.upstream.requests.at(-1)!;
const warningsOf = (response: Response) => response.headers.get('x-gateway-warnings') ?? '';

describe('Claude Code on an Anthropic channel: the turn goes on as written', () => {
  it.each([true, false])('stream: %s', async (stream) => {
    const body = { ...claudeCodeTurn, stream };
    const response = await claudeCode(body);
    expect(response.status).toBe(200);
    await response.text();
    const sent = lastSent();
    expect([sent.path, sent.search]).toEqual(['/v1/messages', '?beta=true']);
    expect(sent.headers['anthropic-beta']).toBe(BETAS);
    // Byte for byte as the client serialised it: every field, role, block and tool type, in order.
    expect(JSON.stringify(sent.body)).toBe(JSON.stringify(body));
    expect(response.headers.get('x-gateway-warnings')).toBeNull();
  });

  it('passes values the gateway does not judge (a future role, a temperature above 1) for Anthropic to judge', async () => {
    const body = {
      ...claudeCodeTurn,
      stream: false,
      temperature: 1.5,
      messages: [{ role: 'critic', content: 'Be terse.' }],
    };
    const response = await claudeCode(body);
    expect(response.status).toBe(200);
    expect(JSON.stringify(lastSent().body)).toBe(JSON.stringify(body));
  });

  it('still refuses what the gateway reads itself: a body without a model or messages', async () => {
    const { model: _model, ...withoutModel } = claudeCodeTurn;
    for (const body of [withoutModel, { ...claudeCodeTurn, messages: [] }, { ...claudeCodeTurn, max_tokens: 0 }]) {
      const response = await claudeCode(body);
      expect(response.status).toBe(400);
      expect(((await response.json()) as any).error.type).toBe('invalid_request_error');
    }
    expect(harness.upstream.requests).toHaveLength(0);
  });
});

describe('Claude Code on an OpenAI channel: converted, degraded and said so', () => {
  const converted: Record<string, unknown> = { ...claudeCodeTurn, model: 'gpt-4o-mini' };

  function expectMapped(sent: Record<string, any>) {
    expect(sent.messages.map((message: { role: string }) => message.role)).toEqual([
      'system',
      'user',
      'system',
      'assistant',
      'tool',
    ]);
    expect(sent.messages[2].content).toBe((claudeCodeTurn['messages'] as any)[1].content);
    expect(sent.messages[3].tool_calls[0].function).toEqual({
      name: 'Read',
      arguments: '{"file_path":"/repo/src/sum.ts"}',
    });
    expect(sent.reasoning_effort).toBe('medium');
    expect(sent.max_completion_tokens).toBe(32000);
    expect(sent.tools.map((tool: any) => tool.function.name)).toEqual(['Read', 'Edit']);
    expect(sent.context_management).toBeUndefined();
    expect(sent.output_config).toBeUndefined();
  }

  function expectWarned(response: Response) {
    const warnings = warningsOf(response);
    expect(warnings).toContain('context_management dropped: no OpenAI equivalent');
    expect(warnings).toContain('server tool tool_search_tool_regex dropped');
    expect(warnings).not.toContain('effort');
  }

  it('streamed: message_start carries the prompt estimate, message_delta the upstream count', async () => {
    const response = await claudeCode(converted);
    expect(response.status).toBe(200);
    const events = parseFrames(await response.text());
    const sent = lastSent();
    const data = (name: string) => JSON.parse(events.find((event) => event.event === name)!.data);
    expect([sent.path, sent.search]).toEqual(['/v1/chat/completions', '']);
    expect(sent.headers['anthropic-beta']).toBeUndefined();
    expectMapped(sent.body as Record<string, any>);
    expectWarned(response);
    expect(data('message_start').message.usage.input_tokens).toBeGreaterThan(100);
    const { usage } = data('message_delta');
    expect(usage.input_tokens + usage.cache_read_input_tokens).toBe(1344);
  });

  it('buffered', async () => {
    const response = await claudeCode({ ...converted, stream: false });
    expect(response.status).toBe(200);
    expect(((await response.json()) as any).type).toBe('message');
    expectMapped(lastSent().body as Record<string, any>);
    expectWarned(response);
  });

  it('drops output_config.effort, with a warning, when thinking is off', async () => {
    const { thinking: _thinking, ...noThinking } = converted;
    const response = await claudeCode({ ...noThinking, stream: false });
    expect(response.status).toBe(200);
    expect((lastSent().body as any).reasoning_effort).toBeUndefined();
    expect(warningsOf(response)).toContain('output_config.effort medium dropped: thinking is off');
  });
});

describe('Codex on a native Responses channel: the body goes on as written', () => {
  it.each([true, false])('stream: %s', async (stream) => {
    const body = { ...codexTurn, stream };
    harness.upstream.next('text');
    const response = await codex(body);
    const text = await response.text();
    expect(response.status, text).toBe(200);
    expect(lastSent().path).toBe('/v1/responses');
    expect(JSON.stringify(lastSent().body)).toBe(JSON.stringify(body));
    expect(response.headers.get('x-gateway-warnings')).toBeNull();
  });
});

describe('Codex on a converted channel: namespace tools flattened and named back, web_search dropped', () => {
  const converted = { ...codexTurn, model: 'gpt-4o-mini' };

  function expectMapped(sent: Record<string, any>) {
    expect(sent.tools.map((tool: any) => tool.function.name)).toEqual([
      'shell',
      'multi_agent_v1__spawn_agent',
      'multi_agent_v1__wait_agent',
    ]);
    // The call the client sent back with its namespace is the flattened tool's call.
    const assistant = sent.messages.find((message: any) => message.role === 'assistant');
    expect(assistant.tool_calls[0].function.name).toBe('multi_agent_v1__wait_agent');
    expect(sent.messages.map((message: any) => message.role)).toEqual([
      'system',
      'system',
      'user',
      'assistant',
      'tool',
    ]);
  }

  function expectWarned(response: Response) {
    const warnings = warningsOf(response);
    expect(warnings).toContain('web_search tool dropped: OpenAI cannot run it');
    expect(warnings).toContain('include dropped: no OpenAI equivalent');
    expect(warnings).toContain('prompt_cache_key dropped: no OpenAI equivalent');
  }

  it('buffered', async () => {
    harness.upstream.next('namespaced-tool-call');
    const response = await codex({ ...converted, stream: false });
    expect(response.status).toBe(200);
    const reply = (await response.json()) as any;
    expectMapped(lastSent().body as Record<string, any>);
    expectWarned(response);
    expect(reply.output).toEqual([
      expect.objectContaining({
        type: 'function_call',
        name: 'spawn_agent',
        namespace: 'multi_agent_v1',
        arguments: '{"task":"Run the failing test"}',
      }),
    ]);
  });

  it('streamed', async () => {
    harness.upstream.next('namespaced-tool-call');
    const response = await codex(converted);
    expect(response.status).toBe(200);
    const events = parseFrames(await response.text()).map((event) => JSON.parse(event.data));
    expectMapped(lastSent().body as Record<string, any>);
    expectWarned(response);
    const added = events.find((event) => event.type === 'response.output_item.added');
    expect(added.item).toMatchObject({ type: 'function_call', name: 'spawn_agent', namespace: 'multi_agent_v1' });
    const done = events.find((event) => event.type === 'response.function_call_arguments.done');
    expect(done).toMatchObject({ name: 'spawn_agent', arguments: '{"task":"Run the failing test"}' });
    const completed = events.find((event) => event.type === 'response.completed');
    expect(completed.response.output[0]).toMatchObject({ name: 'spawn_agent', namespace: 'multi_agent_v1' });
  });

  it('refuses forcing the hosted tool it drops', async () => {
    const response = await codex({ ...converted, stream: false, tool_choice: { type: 'web_search' } });
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).error.param).toBe('tool_choice');
    expect(harness.upstream.requests).toHaveLength(0);
  });
});
