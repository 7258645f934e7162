/**
 * The hand checks of the endpoints' envelopes against the zod envelopes, which stay the source of
 * truth: over generated bodies (plain ones, and ones with a wrong type, range, role, message shape or
 * an unknown field), each hand check gives the schema's answer, and it accepts an agent's turn (tool
 * calls, tool results, content parts, a tool list) without zod.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { messagesEnvelopeSchema } from '../../contracts/anthropic/messages-request.ts';
import { generateContentEnvelopeSchema } from '../../contracts/gemini/client-request.ts';
import { chatCompletionEnvelopeSchema } from '../../contracts/openai/chat-request.ts';
import { responsesEnvelopeSchema } from '../../contracts/openai/responses-request.ts';
import {
  chatCompletionCertainlyValid,
  generateContentCertainlyValid,
  messagesCertainlyValid,
  responsesCertainlyValid,
} from './quick-check.ts';

/** Values of every JSON kind, near and past the contracts' bounds. */
const anyValue = fc.oneof(
  {
    arbitrary: fc.constantFrom(
      ...[null, true, false, '', 'x', 'auto', [], {}],
      // each numeric field's bounds, and just past them
      ...[0, -0, 1, -1, 2, -2, 20, 128, 2 ** 53 - 1, -(2 ** 53 - 1)],
      ...[0.5, 1.5, 1.0001, 2.0001, -2.0001, -0.5, 2.5, 20.5, 21, 129, 2 ** 53, -(2 ** 53), 1e300],
    ),
    weight: 6,
  },
  fc.integer({ min: -300, max: 300 }),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -3, max: 3 }),
  fc.string({ maxLength: 8 }),
  fc.array(fc.constantFrom('a', '', 1, null), { maxLength: 6 }),
  fc.dictionary(fc.constantFrom('include_usage', 'x', 'user_id'), fc.constantFrom(true, 1, 'a', null)),
);

const roles = ['system', 'developer', 'user', 'assistant', 'tool', 'function', 'bogus', ''];
/** A message, right or wrong in any of its keys. */
const anyMessage = fc.record(
  {
    role: fc.oneof(fc.constantFrom(...roles), anyValue),
    content: fc.oneof(
      fc.string({ maxLength: 12 }),
      anyValue,
      fc.constant([{ type: 'text', text: 'hi' }]),
      fc.constant([{ type: 'image_url', image_url: { url: '' } }]),
    ),
    name: fc.oneof(fc.string({ maxLength: 4 }), anyValue),
    tool_call_id: fc.string({ maxLength: 4 }),
    extra: anyValue,
  },
  { requiredKeys: [] },
);

/**
 * Bodies built from valid values (each optional field present or not), then changed in up to two
 * places: a field set to any value (the unknown ones included), or an item of the list replaced by
 * any item.
 */
function bodies(
  valid: Record<string, readonly unknown[]>,
  list: { field: string; good: fc.Arbitrary<unknown>; required: string[] },
) {
  const shape: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [field, values] of Object.entries(valid)) shape[field] = fc.constantFrom(...values);
  shape[list.field] = fc.array(list.good, { minLength: 1, maxLength: 3 });
  const fields = [...Object.keys(shape), 'tools', 'response_format', 'metadata', 'unknown_field'];
  const change = fc.oneof(
    fc.tuple(fc.constant('field'), fc.constantFrom(...fields), anyValue),
    fc.tuple(fc.constant('item'), fc.nat(3), fc.oneof(anyMessage, anyValue)),
  );
  return fc
    .tuple(fc.record(shape, { requiredKeys: list.required }), fc.array(change, { maxLength: 2 }))
    .map(([body, changes]) => {
      const changed: Record<string, unknown> = { ...body };
      for (const [kind, where, value] of changes) {
        if (kind === 'field') changed[where as string] = value;
        else if (Array.isArray(changed[list.field])) {
          // A copy: the list may be one of the generator's shared constants.
          const items = [...(changed[list.field] as unknown[])];
          items[where as number] = value;
          changed[list.field] = items;
        }
      }
      return changed;
    });
}

const message = (roles: string[]) =>
  fc.record({ role: fc.constantFrom(...roles), content: fc.oneof(fc.string({ maxLength: 12 }), anyValue) });

const toolCall = { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } };
const tool = {
  type: 'function',
  function: { name: 'read_file', description: 'Reads a file', parameters: { type: 'object', properties: {} } },
};

interface Case {
  name: string;
  check: (body: Record<string, unknown>) => boolean;
  schema: { safeParse(value: unknown): { success: boolean } };
  valid: Record<string, readonly unknown[]>;
  list: { field: string; good: fc.Arbitrary<unknown>; required: string[] };
  agent: Record<string, unknown>;
}

describe.each<Case>([
  {
    name: 'chat completions',
    check: chatCompletionCertainlyValid,
    schema: chatCompletionEnvelopeSchema,
    valid: {
      model: ['gpt-4o-mini'],
      stream: [true, false, null],
      stream_options: [{ include_usage: true }, {}, null, { include_usage: 1 }],
      temperature: [0, 0.7, 2, null],
      n: [1, 128],
      max_tokens: [1, 64, 2 ** 53 - 1],
      max_completion_tokens: [1, 4096],
      presence_penalty: [-2, 0, 2],
      frequency_penalty: [-1.5, 2],
      tools: [[], [tool]],
    },
    list: {
      field: 'messages',
      good: message(['system', 'user', 'assistant', 'tool']),
      required: ['model', 'messages'],
    },
    agent: {
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'You are a coding agent.' },
        { role: 'user', content: [{ type: 'text', text: 'Fix the test.' }] },
        { role: 'assistant', content: null, tool_calls: [toolCall] },
        { role: 'tool', tool_call_id: 'call_1', content: 'export const a = 1;' },
      ],
      tools: [tool],
      max_tokens: 1024,
    },
  },
  {
    name: 'messages',
    check: messagesCertainlyValid,
    schema: messagesEnvelopeSchema,
    valid: { model: ['claude-sonnet-4-5'], max_tokens: [1, 1024], stream: [true, false], system: ['Be brief.'] },
    list: { field: 'messages', good: message(['user', 'assistant']), required: ['model', 'messages'] },
    agent: {
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      system: [{ type: 'text', text: 'You are a coding agent.', cache_control: { type: 'ephemeral' } }],
      tools: [{ name: 'read_file', description: 'Reads a file', input_schema: { type: 'object' } }],
      messages: [
        { role: 'user', content: 'Fix the test.' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'export const a = 1;' }] },
      ],
    },
  },
  {
    name: 'responses',
    check: responsesCertainlyValid,
    schema: responsesEnvelopeSchema,
    valid: {
      model: ['gpt-4o-mini'],
      input: ['Hello'],
      stream: [true, null],
      store: [false, null],
      previous_response_id: ['resp_1', null],
      max_output_tokens: [1, 1024, null],
    },
    list: { field: 'input', good: message(['user', 'assistant']), required: ['model'] },
    agent: {
      model: 'gpt-4o-mini',
      instructions: 'You are a coding agent.',
      tools: [{ type: 'function', name: 'read_file', parameters: { type: 'object' } }],
      input: [
        { role: 'user', content: 'Fix the test.' },
        { type: 'function_call', call_id: 'call_1', name: 'read_file', arguments: '{}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'export const a = 1;' },
      ],
    },
  },
  {
    name: 'Gemini generateContent',
    check: generateContentCertainlyValid,
    schema: generateContentEnvelopeSchema,
    valid: { generationConfig: [{ maxOutputTokens: 64 }, { candidateCount: 2 }, {}, { maxOutputTokens: 0 }] },
    list: {
      field: 'contents',
      good: fc.record({
        role: fc.constantFrom('user', 'model'),
        parts: fc.oneof(fc.constant([{ text: 'hi' }]), anyValue),
      }),
      required: ['contents'],
    },
    agent: {
      systemInstruction: { parts: [{ text: 'You are a coding agent.' }] },
      tools: [{ functionDeclarations: [{ name: 'read_file', parameters: { type: 'object' } }] }],
      contents: [
        { role: 'user', parts: [{ text: 'Fix the test.' }] },
        { role: 'model', parts: [{ functionCall: { name: 'read_file', args: { path: 'a' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'read_file', response: { content: 'a' } } }] },
      ],
    },
  },
])('the hand check of the $name envelope', ({ check, schema, valid, list, agent }) => {
  it("gives the zod envelope's answer for every generated body, and accepts a good share of them", () => {
    let accepted = 0;
    fc.assert(
      fc.property(bodies(valid, list), (body) => {
        // Through JSON, as the relay gets it.
        const parsed = JSON.parse(JSON.stringify(body)) as Record<string, unknown>;
        const expected = schema.safeParse(parsed).success;
        expect(check(parsed)).toBe(expected);
        if (expected) accepted++;
      }),
      { numRuns: 20_000, seed: 7 },
    );
    // Bodies the envelope takes must come up often enough for the property to say something.
    expect(accepted).toBeGreaterThan(2_000);
  });

  it("accepts an agent's turn (tool calls, tool results, a tool list) without the zod envelope", () => {
    expect(schema.safeParse(agent).success).toBe(true);
    expect(check(agent)).toBe(true);
  });

  it('refuses what the envelope refuses, including a key named __proto__ that hides nothing', () => {
    const withProto = JSON.parse(`{"__proto__": {"x": 1}, ${JSON.stringify(agent).slice(1)}`);
    expect(check(withProto)).toBe(schema.safeParse(withProto).success);
    const broken = { ...agent, [list.field]: 5 };
    expect(check(broken)).toBe(false);
    expect(schema.safeParse(broken).success).toBe(false);
    expect(check({ ...agent, [list.field]: [...(agent[list.field] as unknown[]), 'text'] })).toBe(false);
  });
});
