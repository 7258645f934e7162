import { describe, expect, it } from 'vitest';
import { relayInput } from '../../../test/conversion/support/relay-input.ts';
import { UpstreamCallError } from '../../errors.ts';
import { base64ToFloats, floatsToBase64 } from './embedding-encoding.ts';
import { openAIEmbeddingsProvider, tokenCountsFromEmbeddings } from './embeddings.ts';

const floatRequest = relayInput({ model: 'm', input: 'x', encoding_format: 'float' }, { type: 'openai' });
const base64Request = relayInput({ model: 'm', input: 'x', encoding_format: 'base64' }, { type: 'openai' });
const reply = (embedding: unknown, usage: unknown = { prompt_tokens: 3, total_tokens: 3 }) => ({
  object: 'list',
  data: [{ object: 'embedding', index: 0, embedding }],
  model: 'm-1',
  usage,
});

describe('embedding encodings', () => {
  it('round-trips float32 values through base64 little-endian', () => {
    const vector = [0.5, -1.25, 3, 0];
    const encoded = floatsToBase64(vector)!;
    expect(Buffer.from(encoded, 'base64').readFloatLE(4)).toBe(-1.25);
    expect(base64ToFloats(encoded)).toEqual(vector);
  });

  it('refuses what is not numbers or whole float32 values', () => {
    expect(floatsToBase64([1, '2'])).toBeNull();
    expect(floatsToBase64([Number.NaN])).toBeNull();
    expect(base64ToFloats('AAA=')).toBeNull();
    expect(base64ToFloats('not base64!')).toBeNull();
  });
});

describe('openAIEmbeddingsProvider', () => {
  it('builds the upstream call to base_url/embeddings with the channel model and its key', () => {
    const built = openAIEmbeddingsProvider.buildRequest(floatRequest);
    expect(built.upstream.url).toBe('http://upstream.test/embeddings');
    expect(built.upstream.headers['authorization']).toBe('Bearer upstream-key');
    expect(JSON.parse(built.upstream.body)).toEqual({ model: 'm', input: 'x', encoding_format: 'float' });
  });

  it('leaves a reply in the asked encoding untouched (no client body), and reads its prompt tokens', () => {
    const reading = openAIEmbeddingsProvider.readResponse(reply([0.5]), floatRequest);
    expect(reading.clientBody).toBeUndefined();
    expect(reading.usage).toMatchObject({ promptTokens: 3, completionTokens: 0 });
    expect(reading.model).toBe('m-1');
    expect(openAIEmbeddingsProvider.readResponse(reply('AAAAPw=='), base64Request).clientBody).toBeUndefined();
  });

  it('converts each vector to the asked encoding', () => {
    const toBase64 = openAIEmbeddingsProvider.readResponse(reply([0.5]), base64Request).clientBody as any;
    expect(toBase64.data[0].embedding).toBe(floatsToBase64([0.5]));
    expect(toBase64.usage).toEqual({ prompt_tokens: 3, total_tokens: 3 });
    const toFloats = openAIEmbeddingsProvider.readResponse(reply(floatsToBase64([0.5])), floatRequest).clientBody;
    expect((toFloats as any).data[0].embedding).toEqual([0.5]);
  });

  it.each([
    ['not an object', [1, 2], floatRequest],
    ['no data list', { object: 'list', data: 'x' }, floatRequest],
    ['an entry that is not an object', { object: 'list', data: [null] }, floatRequest],
    ['a vector of strings to encode', reply(['0.5']), base64Request],
    ['a vector that is neither', reply({ values: [1] }), floatRequest],
  ])('answers 502 to a reply with %s', (_case, body, input) => {
    expect(() => openAIEmbeddingsProvider.readResponse(body, input)).toThrow(UpstreamCallError);
  });

  it('does not believe a usage that is not a token count, and says why', () => {
    const note: { usageRefused?: string | null } = {};
    expect(tokenCountsFromEmbeddings({ prompt_tokens: 1e300 }, note)).toBeNull();
    expect(note.usageRefused).toContain('usage.prompt_tokens was 1e+300');
    expect(tokenCountsFromEmbeddings({ total_tokens: 4 }, note)).toBeNull();
    expect(note.usageRefused).toBe('usage had no prompt_tokens');
    expect(tokenCountsFromEmbeddings(undefined)).toBeNull();
    const reading = openAIEmbeddingsProvider.readResponse(reply([0.5], { prompt_tokens: -1 }), floatRequest);
    expect(reading.usage).toBeNull();
    expect(reading.usageRefused).toContain('prompt_tokens');
  });
});
