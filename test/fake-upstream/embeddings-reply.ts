/**
 * The fake's embeddings: the fixture gives the reply's model and usage (recorded shape), and the
 * vectors are made here from the request, one per input, `dimensions` long (8 when not asked), in
 * the encoding the request asked for, unless the scenario plays an upstream that always answers one
 * encoding. Every value is a multiple of 1/16, exact in float32, so tests compare vectors exactly
 * whichever encoding carried them.
 */
import { isRecord, type JsonFixture } from './fixtures.ts';

export const DEFAULT_FAKE_DIMENSIONS = 8;

function inputCount(input: unknown): number {
  if (!Array.isArray(input)) return 1;
  // A flat list of token ids is one input; a list of strings or token lists is one input each.
  return input.length > 0 && typeof input[0] === 'number' ? 1 : input.length;
}

/** The vector the fake answers for input `index` of a request for `dimensions`. */
export function fakeVector(index: number, dimensions: number): number[] {
  return Array.from({ length: dimensions }, (_, position) => (((index * 7 + position) % 17) - 8) / 16);
}

function base64Of(vector: readonly number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  for (const [position, value] of vector.entries()) bytes.writeFloatLE(value, position * 4);
  return bytes.toString('base64');
}

/** The fixture with its `data` made for this request; error fixtures are returned as they are. */
export function withEmbeddings(fixture: JsonFixture, body: unknown, forcedEncoding?: 'float' | 'base64'): JsonFixture {
  if (fixture.status !== 200 || !isRecord(fixture.body) || !isRecord(body)) return fixture;
  const dimensions = typeof body.dimensions === 'number' ? body.dimensions : DEFAULT_FAKE_DIMENSIONS;
  const encoding = forcedEncoding ?? (body.encoding_format === 'base64' ? 'base64' : 'float');
  const data = Array.from({ length: inputCount(body.input) }, (_, index) => {
    const vector = fakeVector(index, dimensions);
    return { object: 'embedding', index, embedding: encoding === 'base64' ? base64Of(vector) : vector };
  });
  return { ...fixture, body: { ...fixture.body, data } };
}
