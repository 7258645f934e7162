/**
 * The hand check of common bodies against the zod contracts, which stay the source of truth: over
 * generated bodies (plain ones, and ones with a wrong type, range, role, content shape or an unknown
 * field anywhere), the hand check never accepts what the contract refuses, and it does accept the
 * plain bodies SDKs send, so the relay's fast path is really taken.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { messagesRequestSchema } from '../../contracts/anthropic/messages-request.ts';
import { chatCompletionRequestSchema } from '../../contracts/openai/chat-request.ts';
import { chatCompletionCertainlyValid, messagesCertainlyValid } from './quick-check.ts';

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
 * places: a field set to any value (the unknown ones included), or a message replaced by any message.
 */
function bodies(valid: Record<string, readonly unknown[]>, goodRoles: readonly string[]) {
  const goodMessage = fc.record(
    { role: fc.constantFrom(...goodRoles), content: fc.string({ maxLength: 12 }) },
    { requiredKeys: ['role', 'content'] },
  );
  const shape: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [field, values] of Object.entries(valid)) shape[field] = fc.constantFrom(...values);
  shape['messages'] = fc.array(goodMessage, { minLength: 1, maxLength: 3 });
  const fields = [...Object.keys(shape), 'tools', 'response_format', 'metadata', 'thinking', 'unknown_field'];
  const change = fc.oneof(
    fc.tuple(fc.constant('field'), fc.constantFrom(...fields), anyValue),
    fc.tuple(fc.constant('message'), fc.nat(3), anyMessage),
  );
  return fc
    .tuple(fc.record(shape, { requiredKeys: ['model', 'messages'] }), fc.array(change, { maxLength: 2 }))
    .map(([body, changes]) => {
      const changed: Record<string, unknown> = { ...body, messages: [...(body['messages'] as unknown[])] };
      for (const [kind, where, value] of changes) {
        if (kind === 'field') changed[where as string] = value;
        else if (Array.isArray(changed['messages'])) (changed['messages'] as unknown[])[where as number] = value;
      }
      return changed;
    });
}

const chatValid = {
  model: ['gpt-4o-mini'],
  stream: [true, false, null],
  stream_options: [{ include_usage: true }, {}, null],
  temperature: [0, 0.7, 2, null],
  top_p: [0, 1, 0.9],
  n: [1, 128],
  max_tokens: [1, 64, 2 ** 53 - 1],
  max_completion_tokens: [1, 4096],
  stop: ['\n', null],
  presence_penalty: [-2, 0, 2],
  frequency_penalty: [-1.5, 2],
  parallel_tool_calls: [true, null],
  seed: [-3, 0, 42],
  logprobs: [false],
  top_logprobs: [0, 20],
  user: ['u-1', ''],
};
const messagesValid = {
  model: ['claude-sonnet-4-5'],
  max_tokens: [1, 1024],
  system: ['Be brief.', ''],
  stop_sequences: [[], ['\n\n']],
  stream: [true, false],
  temperature: [0, 1, 0.5],
  top_p: [0, 1],
  top_k: [0, 40],
};

describe.each([
  {
    name: 'chat completions',
    certainlyValid: chatCompletionCertainlyValid,
    schema: chatCompletionRequestSchema,
    valid: chatValid,
    roles: ['system', 'developer', 'user', 'assistant'],
    plain: {
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello', name: 'ada' },
        { role: 'assistant', content: 'Hi!' },
        { role: 'user', content: '' },
      ],
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.7,
      max_tokens: 64,
      seed: -3,
      user: 'u-1',
    },
  },
  {
    name: 'messages',
    certainlyValid: messagesCertainlyValid,
    schema: messagesRequestSchema,
    valid: messagesValid,
    roles: ['user', 'assistant'],
    plain: {
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      system: 'Be brief.',
      messages: [
        { role: 'user', content: 'Hello' },
        { role: 'assistant', content: 'Hi!' },
        { role: 'user', content: 'More' },
      ],
      stream: true,
      temperature: 1,
      stop_sequences: ['\n\n'],
    },
  },
])('the hand check of $name bodies', ({ certainlyValid, schema, valid, roles: goodRoles, plain }) => {
  it('never accepts a body the zod contract refuses, and accepts a good share of those it takes', () => {
    let accepted = 0;
    fc.assert(
      fc.property(bodies(valid, goodRoles), (body) => {
        // Through JSON, as the relay gets it.
        const parsed = JSON.parse(JSON.stringify(body)) as Record<string, unknown>;
        if (certainlyValid(parsed)) {
          accepted++;
          expect(schema.safeParse(parsed).success).toBe(true);
        }
      }),
      { numRuns: 20_000, seed: 7 },
    );
    // Bodies the hand check takes must come up often enough for the property to say something.
    expect(accepted).toBeGreaterThan(2_000);
  });

  it('accepts the plain bodies SDKs send', () => {
    expect(schema.safeParse(plain).success).toBe(true);
    expect(certainlyValid(plain)).toBe(true);
  });

  it('leaves to the contract what it does not know', () => {
    const withProto = JSON.parse(`{"__proto__": {"x": 1}, ${JSON.stringify(plain).slice(1)}`);
    expect(certainlyValid(withProto)).toBe(false);
    expect(certainlyValid({ ...plain, tools: [] })).toBe(false);
    expect(certainlyValid({ ...plain, messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] })).toBe(
      false,
    );
    expect(certainlyValid({ ...plain, messages: [] })).toBe(false);
    expect(certainlyValid({ ...plain, model: '' })).toBe(false);
  });
});
