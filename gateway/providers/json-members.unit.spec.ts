/**
 * The client's JSON text sent on with only some top-level members changed: the result parses to the
 * client's object with those members set, and every other byte is the client's.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withMembers } from './json-members.ts';

const keys = fc.constantFrom('model', 'stream_options', 'max_tokens', 'messages', 'a"b', 'é', 'x\\y');

describe('withMembers', () => {
  it('parses to the object with the members set, however the client formatted it', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.oneof(keys, fc.string()), fc.jsonValue({ maxDepth: 4 })),
        fc.dictionary(keys, fc.jsonValue({ maxDepth: 2 })),
        fc.constantFrom(undefined, 0, 2, '\t'),
        (client, members, indent) => {
          const text = JSON.stringify(client, null, indent);
          expect(JSON.parse(withMembers(text, members))).toEqual(JSON.parse(JSON.stringify({ ...client, ...members })));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('keeps the client text as it is when nothing changes', () => {
    const text = '{ "model" : "gpt-4o",\n "messages": [{"role":"user","content":"a \\" } ] { quote"}], "n":1 }';
    expect(withMembers(text, {})).toBe(text);
  });

  it('writes a changed member in its place and adds a missing one at the start, touching nothing else', () => {
    const text = '{"model":"alias","messages":[{"role":"user","content":"hi, \\"model\\": 1"}],"stream":true}';
    expect(withMembers(text, { model: 'gpt-4o', stream_options: { include_usage: true } })).toBe(
      '{"stream_options":{"include_usage":true},"model":"gpt-4o","messages":[{"role":"user","content":"hi, \\"model\\": 1"}],"stream":true}',
    );
    expect(withMembers('{ }', { max_tokens: 4096 })).toBe('{"max_tokens":4096 }');
  });

  it('sets the last of duplicated members, the one JSON.parse reads', () => {
    const result = withMembers('{"model":"a","model":"b"}', { model: 'c' });
    expect(JSON.parse(result)).toEqual({ model: 'c' });
  });
});
