/**
 * The gemini fixtures hold Google's documented shapes: every reply and stream event parses with the
 * contract (contracts/gemini), every error is a google.rpc.Status, and no gemini fixture on disk is
 * left out of the cases the fake serves (gemini-upstream.ts).
 */
import { describe, expect, it } from 'vitest';
import { countTokensResponseSchema, embedContentResponseSchema } from '../../contracts/gemini/client-response.ts';
import { geminiErrorBodySchema } from '../../contracts/gemini/error.ts';
import { geminiGenerateContentResponseSchema } from '../../contracts/gemini/generate-content-response.ts';
import { listFixtures, loadJsonFixture, parseStreamChunks } from './fixtures.ts';
import { geminiCases, geminiFixtureNames } from './gemini-upstream.ts';

describe('gemini fixtures', () => {
  it.each(geminiCases.json.filter((name) => !name.startsWith('error')))(
    'gemini-%s is a GenerateContentResponse',
    (name) => {
      const fixture = loadJsonFixture(`gemini-${name}`);
      expect(fixture.status).toBe(200);
      expect(geminiGenerateContentResponseSchema.strict().safeParse(fixture.body).error).toBeUndefined();
    },
  );

  it.each(geminiCases.json.filter((name) => name.startsWith('error')))('gemini-%s is Google’s error body', (name) => {
    const fixture = loadJsonFixture(`gemini-${name}`);
    expect(fixture.status).toBeGreaterThanOrEqual(400);
    const parsed = geminiErrorBodySchema.parse(fixture.body);
    expect(parsed.error.code).toBe(fixture.status);
  });

  it.each(geminiCases.stream)('gemini-%s is a stream of partial responses (or an error)', (name) => {
    for (const event of parseStreamChunks(`gemini-${name}`)) {
      const asResponse = geminiGenerateContentResponseSchema.strict().safeParse(event);
      if (!asResponse.success) expect(geminiErrorBodySchema.safeParse(event).error).toBeUndefined();
    }
  });

  it('the count and embedding answers are Google’s shapes', () => {
    expect(countTokensResponseSchema.safeParse(loadJsonFixture('gemini-count-tokens').body).error).toBeUndefined();
    expect(embedContentResponseSchema.safeParse(loadJsonFixture('gemini-embed-content').body).error).toBeUndefined();
  });

  it('every gemini fixture on disk is a case of the fake', () => {
    const onDisk = [...listFixtures()].filter((name) => name.startsWith('gemini-'));
    expect(onDisk.sort()).toEqual([...geminiFixtureNames].sort());
  });
});
