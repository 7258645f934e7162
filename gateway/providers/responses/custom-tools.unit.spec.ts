import { describe, expect, it } from 'vitest';
import type { NeutralReply } from '../../../contracts/neutral/reply.ts';
import { responsesRequestSchema } from '../../../contracts/openai/responses-request.ts';
import { responsesStreamEventSchema } from '../../../contracts/openai/responses-response.ts';
import { parseFrames } from '../../../test/conversion/support/sse.ts';
import { clientCall, clientTools } from './client-tools.ts';
import { customArguments, customInput, customToolParameters } from './custom-tools.ts';
import { readResponsesRequest } from './read-responses-request.ts';
import { writeResponsesReply } from './write-responses-reply.ts';
import { ResponsesStreamWriter } from './write-responses-stream.ts';

const grammar = { type: 'grammar', syntax: 'lark', definition: 'start: SOURCE\nSOURCE: /[\\s\\S]+/' };
const exec = { type: 'custom', name: 'exec', description: 'Runs JavaScript.', format: grammar };
const SCRIPT = 'text("a\\nb");\nexit();';

/** Codex's shape: no `tools`, its own in an additional_tools item, the read route a custom tool. */
const body = responsesRequestSchema.parse({
  model: 'm',
  input: [
    {
      type: 'additional_tools',
      role: 'developer',
      tools: [
        {
          type: 'namespace',
          name: 'functions',
          description: '',
          tools: [exec, { type: 'function', name: 'wait', parameters: { type: 'object' } }],
        },
        { type: 'custom', name: 'apply_patch', format: { type: 'text' } },
        { type: 'web_search' },
      ],
    },
    { role: 'user', content: 'Read notes.txt.' },
    { type: 'custom_tool_call', call_id: 'call_1', namespace: 'functions', name: 'exec', input: SCRIPT },
    {
      type: 'custom_tool_call_output',
      call_id: 'call_1',
      output: [
        { type: 'input_text', text: 'Output:\n' },
        { type: 'input_text', text: 'pelican' },
      ],
    },
    // Offered again later in the conversation: once is enough for a converted channel.
    { type: 'additional_tools', role: 'developer', tools: [{ type: 'custom', name: 'apply_patch' }] },
  ],
  tool_choice: { type: 'custom', name: 'apply_patch' },
});

const usage = { promptTokens: 1, completionTokens: 1, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };
const reply = (name: string, args: string): NeutralReply & { usage: typeof usage } => ({
  id: 'chatcmpl-1',
  model: 'm',
  blocks: [{ type: 'tool-call', id: 'call_2', name, arguments: args }],
  finishReason: 'tool-calls',
  stopSequence: null,
  usage,
});

describe('custom tools as functions', () => {
  it('take one string, described with the grammar or as raw text', () => {
    const parameters = customToolParameters(exec as never) as any;
    expect(parameters).toMatchObject({ type: 'object', required: ['input'], additionalProperties: false });
    expect(parameters.properties.input.type).toBe('string');
    expect(parameters.properties.input.description).toContain('lark grammar:\nstart: SOURCE');
    const free = customToolParameters({ type: 'custom', name: 'note' }) as any;
    expect(free.properties.input.description).toBe(
      "The tool's input as raw text: not JSON, not quoted, no code fences.",
    );
  });

  it('wrap a call’s text as arguments and unwrap it again', () => {
    expect(customInput(customArguments(SCRIPT))).toBe(SCRIPT);
    expect(customInput('{"code":"x()"}')).toBe('x()');
    expect(customInput('{}')).toBe('');
    expect(customInput('')).toBe('');
    expect(customInput('x()')).toBe('x()');
    expect(customInput('{"a":"1","b":"2"}')).toBe('{"a":"1","b":"2"}');
  });
});

describe('reading a Codex request on a converted channel', () => {
  const { request, warnings } = readResponsesRequest(body, { target: 'Anthropic' });

  it('offers the additional_tools items’ tools, flattened, each name once', () => {
    expect(request.tools.map((tool) => tool.name)).toEqual(['functions__exec', 'functions__wait', 'apply_patch']);
    expect(request.tools[0]).toEqual({
      name: 'functions__exec',
      description: 'Runs JavaScript.',
      parameters: customToolParameters(exec as never),
    });
    expect(request.toolChoice).toEqual({ name: 'apply_patch' });
    expect(warnings).toEqual([
      'web_search tool dropped: Anthropic cannot run it',
      'tool apply_patch offered again dropped: Anthropic takes each name once',
    ]);
  });

  it('reads the custom call and its output as a tool call and its result', () => {
    expect(request.turns).toEqual([
      { role: 'user', parts: [{ type: 'text', text: 'Read notes.txt.' }] },
      {
        role: 'assistant',
        parts: [{ type: 'tool-call', id: 'call_1', name: 'functions__exec', arguments: customArguments(SCRIPT) }],
      },
      { role: 'user', parts: [{ type: 'tool-result', callId: 'call_1', output: 'Output:\npelican' }] },
    ]);
  });

  it('names every function and custom tool as the client knows it', () => {
    const tools = clientTools(body);
    expect(clientCall('functions__exec', tools)).toEqual({ name: 'exec', namespace: 'functions', custom: true });
    expect(clientCall('functions__wait', tools)).toEqual({ name: 'wait', namespace: 'functions', custom: false });
    expect(clientCall('apply_patch', tools)).toEqual({ name: 'apply_patch', custom: true });
    expect(clientCall('made_up', tools)).toEqual({ name: 'made_up', custom: false });
  });
});

describe('answering a call of a custom tool', () => {
  it('whole: a custom_tool_call with the text, which reads back as the same call', () => {
    const written = writeResponsesReply(reply('functions__exec', customArguments(SCRIPT)), body, 0);
    const item = written.output[0]!;
    expect(item).toEqual({
      type: 'custom_tool_call',
      id: expect.stringMatching(/^ctc_/),
      call_id: 'call_2',
      name: 'exec',
      namespace: 'functions',
      input: SCRIPT,
      status: 'completed',
    });
    const next = responsesRequestSchema.parse({ model: 'm', input: [{ role: 'user', content: 'go' }, item] });
    expect(readResponsesRequest(next).request.turns[1]!.parts).toEqual([
      { type: 'tool-call', id: 'call_2', name: 'functions__exec', arguments: customArguments(SCRIPT) },
    ]);
  });

  it('whole: a function of the same request stays a function_call', () => {
    const written = writeResponsesReply(reply('functions__wait', '{}'), body, 0);
    expect(written.output[0]).toMatchObject({ type: 'function_call', name: 'wait', namespace: 'functions' });
  });

  it('streamed: the item opens empty, its text comes in one delta when the arguments are whole', () => {
    const writer = new ResponsesStreamWriter({ request: body, createdAt: 0 });
    const args = customArguments(SCRIPT);
    // Split inside the escaped newline: no prefix of the arguments decodes to the right text.
    const cut = args.indexOf('\\n') + 1;
    const frames = [
      writer.write({ type: 'start', id: 'chatcmpl-1', model: 'm', usage: null }),
      writer.write({ type: 'tool-call-start', toolIndex: 0, id: 'call_2', name: 'functions__exec' }),
      writer.write({ type: 'tool-call-delta', toolIndex: 0, arguments: args.slice(0, cut) }),
      writer.write({ type: 'tool-call-delta', toolIndex: 0, arguments: args.slice(cut) }),
      writer.write({ type: 'finish', reason: 'tool-calls', stopSequence: null }),
      writer.write({ type: 'usage', usage, estimated: false }),
      writer.write({ type: 'end' }),
    ].join('');
    const events = parseFrames(frames).map((frame) => responsesStreamEventSchema.parse(JSON.parse(frame.data)));
    expect(events.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.custom_tool_call_input.delta',
      'response.custom_tool_call_input.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events[2]).toMatchObject({ item: { type: 'custom_tool_call', input: '', status: 'in_progress' } });
    expect(events[3]).toMatchObject({ delta: SCRIPT });
    expect(events[4]).toMatchObject({ input: SCRIPT });
    expect(events[5]).toMatchObject({
      item: { name: 'exec', namespace: 'functions', input: SCRIPT, status: 'completed' },
    });
    const completed = events[6]!;
    expect(completed.type === 'response.completed' && completed.response.output).toEqual([
      expect.objectContaining({ type: 'custom_tool_call', input: SCRIPT }),
    ]);
  });
});
