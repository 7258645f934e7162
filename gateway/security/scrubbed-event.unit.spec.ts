/**
 * An event kept from an upstream's answer: scrubbed of the channel's keys exactly as scrubJsonText
 * scrubs its printed text, and, with no key in it, kept as the same object, its text never parsed.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { scrubJsonText, scrubKnownSecrets } from './scrub-secrets.ts';
import { scrubbedEvent } from './scrubbed-event.ts';

const SECRET = 'sk-upstream-0123456789abcdef';

afterEach(() => vi.restoreAllMocks());

describe('scrubbedEvent', () => {
  it('keeps an event with no key in it as it is, printed once and never parsed', () => {
    const event = { type: 'response.stored', body: { output: [{ text: 'Hello' }], usage: { input: 3 } } };
    const parse = vi.spyOn(JSON, 'parse');
    const stringify = vi.spyOn(JSON, 'stringify');
    const kept = scrubbedEvent(event, [SECRET]);
    expect(kept.event).toBe(event);
    expect(kept.text).toBe(JSON.stringify(event));
    expect(kept.bytes).toBe(Buffer.byteLength(kept.text));
    expect(parse).not.toHaveBeenCalled();
    expect(stringify).toHaveBeenCalledTimes(2); // the one above, in the expectation, and the event's own
  });

  it('takes a channel key out of the text and of the event kept', () => {
    const event = { body: { output: [{ text: `the key is ${SECRET}, é` }], model: 'm' } };
    const kept = scrubbedEvent(event, [SECRET]);
    expect(kept.text).not.toContain(SECRET);
    expect(JSON.stringify(kept.event)).not.toContain(SECRET);
    expect(kept.event).toEqual(JSON.parse(kept.text));
    expect(kept.bytes).toBe(Buffer.byteLength(kept.text));
  });

  it('gives what scrubbing the printed event as JSON gives, with and without keys', () => {
    const withSecret = fc.oneof(
      fc.string(),
      fc.string().map((text) => `${text}${SECRET}${text}`),
    );
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        withSecret,
        fc.integer(),
        fc.constant(null),
        fc.array(tie('node'), { maxLength: 4 }),
        fc.dictionary(withSecret, tie('node'), { maxKeys: 4 }),
      ),
    })).node;
    fc.assert(
      fc.property(fc.dictionary(fc.string(), value), (event) => {
        const expected = scrubJsonText(JSON.stringify(event), [SECRET], scrubKnownSecrets);
        const kept = scrubbedEvent(event, [SECRET]);
        expect(kept.text).toBe(expected);
        expect(kept.event).toEqual(JSON.parse(expected));
      }),
      { numRuns: 2_000, seed: 11 },
    );
  });
});
