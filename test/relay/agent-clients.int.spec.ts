/**
 * Agent clients: a Claude Code-style session through the gateway with the official
 * `@anthropic-ai/sdk`, called as Claude Code calls it (`beta.messages.stream` with betas, and
 * `beta.messages.countTokens` between turns). On an Anthropic channel the betas reach the upstream,
 * every `cache_control` and thinking signature is sent on unchanged, the cache usage is reported to the
 * client and recorded; a long tool loop streams turn after turn. On an OpenAI channel the betas are
 * dropped and the loop still works, converted.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RequestCompleted, UsageRecorded } from '../../contracts/events/index.ts';
import { parseStreamChunks } from '../fake-upstream/fixtures.ts';
import { AGENT_BETAS, agentSession, countRequest, firstTurn, nextTurn } from '../support/claude-code-session.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';
import { loggedEvents } from '../support/logged-events.ts';

type BetaMessageParam = Anthropic.Beta.Messages.BetaMessageParam;

let harness: Harness;
let client: Anthropic;

beforeAll(async () => {
  harness = await startHarness();
  const consoleClient = new ConsoleClient(harness.baseUrl);
  await consoleClient.register('agents@example.com');
  const { key } = await consoleClient.createToken('claude code');
  // Claude Code's own header; the gateway has no use for it and must not mind it.
  client = new Anthropic({ baseURL: harness.baseUrl, apiKey: key, maxRetries: 0, defaultHeaders: { 'x-app': 'cli' } });
});
afterAll(async () => harness.stop());
beforeEach(() => harness.upstream.reset());

/** message_start's usage of a fixture: what the upstream reports for that turn. */
function startUsage(fixture: string): Record<string, number> {
  const start = parseStreamChunks(fixture)[0] as { message: { usage: Record<string, number> } };
  return start.message.usage;
}

interface Turn {
  final: Anthropic.Beta.Messages.BetaMessage;
  streamedText: string;
  requestId: string | null;
}

async function streamTurn(model: string, messages: BetaMessageParam[], fixture?: string): Promise<Turn> {
  if (fixture) harness.upstream.next(fixture);
  const stream = client.beta.messages.stream({ ...agentSession(model), messages, betas: AGENT_BETAS });
  let streamedText = '';
  stream.on('text', (text) => {
    streamedText += text;
  });
  const final = await stream.finalMessage();
  const { response } = await stream.withResponse();
  return { final, streamedText, requestId: response.headers.get('x-request-id') };
}

async function recordedEvents(requestIds: Array<string | null>) {
  await harness.runtime.publisher.flush();
  const events = loggedEvents(harness.dataDirectory);
  const mine = (event: { body: { requestId: string } }) => requestIds.includes(event.body.requestId);
  return {
    completed: events.filter((event): event is RequestCompleted => event.type === 'request.completed' && mine(event)),
    usage: events.filter((event): event is UsageRecorded => event.type === 'usage.recorded' && mine(event)),
  };
}

describe('a Claude Code-style session on an Anthropic channel', () => {
  const fixtures = ['anthropic-agent-read-stream', 'anthropic-agent-edit-stream', 'anthropic-agent-done-stream'];

  it('streams the tool loop with betas, cache breakpoints and thinking signatures passed on unchanged', async () => {
    let messages = firstTurn('The test for sum() fails. Fix it.');
    const turns: Turn[] = [];
    const counted: number[] = [];
    for (const fixture of fixtures) {
      const count = await client.beta.messages.countTokens(countRequest('claude-sonnet-4-5', messages));
      counted.push(count.input_tokens);
      const countSent = harness.upstream.requests.at(-1)!;
      expect(countSent.path).toBe('/v1/messages/count_tokens');
      expect(countSent.headers['anthropic-beta']).toBe([...AGENT_BETAS, 'token-counting-2024-11-01'].join(','));
      const { betas: _header, ...countBody } = countRequest('claude-sonnet-4-5', messages);
      expect(countSent.body).toEqual(countBody);
      const turn = await streamTurn('claude-sonnet-4-5', messages, fixture.replace(/^anthropic-|-stream$/g, ''));
      turns.push(turn);
      const sent = harness.upstream.requests.filter((request) => request.path === '/v1/messages').at(-1)!;
      expect(sent.headers['anthropic-beta']).toBe(AGENT_BETAS.join(','));
      // The body as the SDK sent it: system, tools and message breakpoints, thinking with its signature.
      expect(sent.body).toEqual({ ...agentSession('claude-sonnet-4-5'), messages, stream: true });
      if (turn.final.stop_reason === 'tool_use') messages = nextTurn(messages, turn.final.content, 'x'.repeat(2000));
    }
    expect(turns.map((turn) => turn.final.stop_reason)).toEqual(['tool_use', 'tool_use', 'end_turn']);
    const [read, edit] = turns.map((turn) => turn.final);
    expect(read!.content.map((block) => block.type)).toEqual(['thinking', 'text', 'tool_use']);
    expect(read!.content[2]).toMatchObject({ name: 'Read', input: { file_path: '/repo/src/sum.ts' } });
    expect(edit!.content[1]).toMatchObject({ name: 'Edit', input: { old_string: 'i < n - 1', new_string: 'i < n' } });
    expect(turns[2]!.streamedText).toBe('Fixed: the loop in `sum` now includes the last element, and the test passes.');
    // The thinking block went back in the second request exactly as the first reply streamed it.
    const second = harness.upstream.requests.filter((request) => request.path === '/v1/messages')[1]!;
    expect((second.body as any).messages[1].content[0]).toEqual(read!.content[0]);
    expect((read!.content[0] as { signature: string }).signature).toMatch(/^EpYC/);
    // The cache figures the client reads are the upstream's.
    fixtures.forEach((fixture, index) => {
      const usage = startUsage(fixture);
      expect(turns[index]!.final.usage).toMatchObject({
        cache_creation_input_tokens: usage['cache_creation_input_tokens'],
        cache_read_input_tokens: usage['cache_read_input_tokens'],
      });
    });
    expect(counted).toHaveLength(3);
    // The usage events count cache reads and writes inside the prompt tokens.
    const { usage, completed } = await recordedEvents(turns.map((turn) => turn.requestId));
    expect(completed.map((event) => [event.body.endpoint, event.body.stream, event.body.status])).toEqual(
      Array(3).fill(['messages', true, 200]),
    );
    const ordered = turns.map((turn) => usage.find((event) => event.body.requestId === turn.requestId)!.body);
    expect(ordered.map((body) => [body.cachedTokens, body.cacheWriteTokens, body.promptTokens])).toEqual(
      fixtures.map((fixture) => {
        const reported = startUsage(fixture);
        const read = reported['cache_read_input_tokens']!;
        const write = reported['cache_creation_input_tokens']!;
        return [read, write, reported['input_tokens']! + read + write];
      }),
    );
  });

  it('keeps streaming a long tool loop: 24 turns, the history growing past 1 MB', async () => {
    let messages = firstTurn('Read every file in src/ and fix what fails.');
    const output = 'line of a large source file\n'.repeat(1800);
    const stops: Array<string | null> = [];
    for (let turn = 0; turn < 24; turn++) {
      const { final } = await streamTurn('claude-sonnet-4-5', messages, turn < 23 ? 'agent-edit' : 'agent-done');
      stops.push(final.stop_reason);
      if (final.stop_reason === 'tool_use') messages = nextTurn(messages, final.content, output);
    }
    expect(stops).toEqual([...Array(23).fill('tool_use'), 'end_turn']);
    const last = harness.upstream.requests.at(-1)!;
    expect(JSON.stringify(last.body).length).toBeGreaterThan(1024 * 1024);
    expect((last.body as any).messages).toHaveLength(47);
  });
});

describe('the same session on an OpenAI channel', () => {
  it('drops the betas upstream and still runs the tool loop, converted', async () => {
    let messages = firstTurn('The test for sum() fails. Fix it.');
    const first = await streamTurn('gpt-4o-mini', messages);
    expect(first.final.stop_reason).toBe('tool_use');
    messages = nextTurn(messages, first.final.content, 'function sum() {}');
    const second = await streamTurn('gpt-4o-mini', messages);
    expect(second.final.stop_reason).toBe('end_turn');
    expect(second.streamedText.length).toBeGreaterThan(0);
    for (const request of harness.upstream.requests) {
      expect(request.path).toBe('/v1/chat/completions');
      expect(request.headers['anthropic-beta']).toBeUndefined();
    }
    const counted = await client.beta.messages.countTokens(countRequest('gpt-4o-mini', messages)).withResponse();
    expect(counted.response.headers.get('x-gateway-token-count')).toBe('estimate');
    expect(counted.data.input_tokens).toBeGreaterThan(0);
  });
});
