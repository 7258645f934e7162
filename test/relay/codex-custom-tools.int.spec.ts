/**
 * Codex 0.171 with its default model, replayed from a recorded-shape body
 * (fixtures/codex-0.171.0-responses.json): no `tools`, every tool in an `additional_tools` input
 * item, grouped in namespaces, its read route `exec` a custom (freeform) tool of the `functions`
 * namespace that takes JavaScript held to a lark grammar; the history holds a `custom_tool_call` and
 * its `custom_tool_call_output`.
 *
 * On a converted channel (OpenAI chat and Anthropic here) the upstream is offered the item's tools,
 * `exec` as a function of one string, and the earlier call and result as a tool call and its result;
 * the model's call of `functions__exec` comes back to Codex as a `custom_tool_call` of `exec` in
 * `functions` with the text unwrapped, whole and streamed.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { responsesObjectSchema, responsesStreamEventSchema } from '../../contracts/openai/responses-response.ts';
import { parseFrames } from '../conversion/support/sse.ts';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';

const recorded = JSON.parse(
  readFileSync(new URL('fixtures/codex-0.171.0-responses.json', import.meta.url), 'utf8'),
) as Record<string, any>;
/** The first request of the turn: everything before the call. */
const firstRequest = { ...recorded, input: recorded['input'].slice(0, 7) };
const SCRIPT = 'const result = await tools.exec_command({ cmd: "cat /repo/notes.txt" });\ntext(result.output);';

let harness: Harness;
let key: string;

beforeAll(async () => {
  harness = await startHarness();
  const console = new ConsoleClient(harness.baseUrl);
  await console.register('codex-custom-tools@example.com');
  key = (await console.createToken('codex')).key;
});
afterAll(async () => harness.stop());
beforeEach(() => harness.upstream.reset());

function codex(body: Record<string, unknown>) {
  return fetch(`${harness.baseUrl}/v1/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', originator: 'codex_exec' },
    body: JSON.stringify(body),
  });
}

const sent = () => harness.upstream.requests.at(-1)!.body as Record<string, any>;
const warningsOf = (response: Response) => response.headers.get('x-gateway-warnings') ?? '';
const toolNames = [
  'functions__exec',
  'functions__wait',
  'functions__request_user_input',
  'functions__request_user_input_async',
  'functions__send_message_to_user_async',
  'clock__sleep',
  'collaboration__followup_task',
  'collaboration__interrupt_agent',
  'collaboration__list_agents',
  'collaboration__send_message',
  'collaboration__spawn_agent',
  'collaboration__wait_agent',
];

const channels = [
  {
    kind: 'openai chat',
    model: 'gpt-4o-mini',
    /** the offered tools as name and parameters */
    tools: (body: Record<string, any>) =>
      body['tools'].map((tool: any) => ({ name: tool.function.name, parameters: tool.function.parameters })),
    /** the earlier call and its result as the upstream received them */
    history: (body: Record<string, any>) => {
      const call = body['messages'].find((message: any) => message.tool_calls).tool_calls[0];
      const result = body['messages'].find((message: any) => message.role === 'tool');
      return { name: call.function.name, arguments: call.function.arguments, id: call.id, result: result.content };
    },
  },
  {
    kind: 'anthropic',
    model: 'claude-sonnet-4-5',
    tools: (body: Record<string, any>) =>
      body['tools'].map((tool: any) => ({ name: tool.name, parameters: tool.input_schema })),
    history: (body: Record<string, any>) => {
      const blocks = body['messages'].flatMap((message: any) =>
        Array.isArray(message.content) ? message.content : [],
      );
      const call = blocks.find((block: any) => block.type === 'tool_use');
      const result = blocks.find((block: any) => block.type === 'tool_result');
      const text = typeof result.content === 'string' ? result.content : result.content[0].text;
      return { name: call.name, arguments: JSON.stringify(call.input), id: call.id, result: text };
    },
  },
];

describe.each(channels)('Codex custom tools on an $kind channel', ({ model, tools, history }) => {
  it('offers the additional_tools item’s tools, exec as a function of one string', async () => {
    harness.upstream.next('exec-tool-call');
    const response = await codex({ ...firstRequest, model, stream: false });
    expect(response.status, await response.clone().text()).toBe(200);
    const offered = tools(sent());
    expect(offered.map((tool: any) => tool.name)).toEqual(toolNames);
    const exec = offered[0].parameters;
    expect(exec).toMatchObject({ type: 'object', required: ['input'], properties: { input: { type: 'string' } } });
    expect(exec.properties.input.description).toContain('lark grammar');
    expect(exec.properties.input.description).toContain('PRAGMA_LINE');
    expect(warningsOf(response)).not.toContain('additional_tools');
    expect(warningsOf(response)).toContain('client_metadata dropped');
  });

  it('answers the call as a custom_tool_call, whole', async () => {
    harness.upstream.next('exec-tool-call');
    const response = await codex({ ...firstRequest, model, stream: false });
    const reply = responsesObjectSchema.parse(await response.json());
    expect(reply.output).toEqual([
      expect.objectContaining({
        type: 'custom_tool_call',
        name: 'exec',
        namespace: 'functions',
        input: SCRIPT,
        status: 'completed',
      }),
    ]);
    expect(reply.output[0]!.id).toMatch(/^ctc_/);
  });

  it('streams the call as a custom_tool_call, its text in custom_tool_call_input events', async () => {
    harness.upstream.next('exec-tool-call');
    const response = await codex({ ...firstRequest, model, stream: true });
    expect(response.status).toBe(200);
    const events = parseFrames(await response.text()).map((frame) =>
      responsesStreamEventSchema.parse(JSON.parse(frame.data)),
    );
    const types = events.map((event) => event.type);
    expect(types).not.toContain('response.function_call_arguments.delta');
    expect(types.slice(2)).toEqual([
      'response.output_item.added',
      'response.custom_tool_call_input.delta',
      'response.custom_tool_call_input.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const added = events.find((event) => event.type === 'response.output_item.added')!;
    expect(added).toMatchObject({
      item: { type: 'custom_tool_call', name: 'exec', namespace: 'functions', input: '' },
    });
    const deltas = events.flatMap((event) =>
      event.type === 'response.custom_tool_call_input.delta' ? [event.delta] : [],
    );
    expect(deltas.join('')).toBe(SCRIPT);
    expect(events.find((event) => event.type === 'response.custom_tool_call_input.done')).toMatchObject({
      input: SCRIPT,
    });
    const completed = events.at(-1)!;
    expect(completed.type === 'response.completed' && completed.response.output[0]).toMatchObject({
      type: 'custom_tool_call',
      name: 'exec',
      namespace: 'functions',
      input: SCRIPT,
      status: 'completed',
    });
  });

  it.each([false, true])(
    'sends the earlier custom call and its output back as a tool call and result (stream %s)',
    async (stream) => {
      const response = await codex({ ...recorded, model, stream });
      expect(response.status).toBe(200);
      await response.text();
      expect(history(sent())).toEqual({
        name: 'functions__exec',
        arguments: JSON.stringify({ input: SCRIPT }),
        id: 'call_1',
        result: expect.stringContaining('The secret word is pelican-fixture.'),
      });
      expect(tools(sent()).map((tool: any) => tool.name)).toEqual(toolNames);
    },
  );
});
