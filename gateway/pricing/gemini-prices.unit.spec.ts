import { describe, expect, it } from 'vitest';
import { PriceDatabase } from './price-database.ts';

describe('the price database for gemini channels', () => {
  it('prices a Gemini model by Google’s entry, also behind a proxy the database does not know', () => {
    const database = new PriceDatabase();
    for (const baseUrl of ['https://generativelanguage.googleapis.com', 'https://gemini-proxy.example.com']) {
      const price = database.priceOf({
        upstreamModel: 'gemini-2.5-flash',
        channelType: 'gemini',
        baseUrl,
        promptTokens: 100,
        at: new Date('2026-01-01T00:00:00Z'),
      });
      expect(price).toMatchObject({ model: 'google:gemini-2.5-flash', inputPerMillion: expect.any(Number) });
    }
  });
});
