/**
 * The models page's API: every model an enabled channel serves, with the price a call is charged at
 * (the operator's over the price database's, none when neither knows it), narrowed to one key's
 * allowlist when asked, and another person's key not found.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({
    configLines: [
      'prices:',
      '  gpt-4o-mini: {input_per_million: 0.15, output_per_million: 0.6, cache_read_per_million: 0.075}',
    ],
  });
});
afterAll(async () => harness.stop());

describe('GET /api/models/prices', () => {
  it('lists the served models with their prices, and what is unpriced', async () => {
    const person = new ConsoleClient(harness.baseUrl);
    await person.register('prices@example.com');
    const { status, body } = await person.call('GET', '/api/models/prices');
    expect(status).toBe(200);
    const byModel = Object.fromEntries(body.items.map((item: any) => [item.model, item]));
    expect(Object.keys(byModel)).toEqual(['claude-sonnet-4-5', 'gpt-4o-mini', 'gpt-mapped']);
    expect(byModel['gpt-4o-mini']).toEqual({
      model: 'gpt-4o-mini',
      channels: 1,
      prices: [
        {
          source: 'config',
          input_per_million: 0.15,
          output_per_million: 0.6,
          cache_read_per_million: 0.075,
          cache_write_per_million: 0.15,
          cache_write_1h_per_million: 0.15,
          per_request: 0,
        },
      ],
      unpriced_channels: 0,
    });
    // The database knows Anthropic's model by the channel's kind.
    expect(byModel['claude-sonnet-4-5'].prices[0]).toMatchObject({ source: 'genai-prices', input_per_million: 3 });
    expect(byModel['claude-sonnet-4-5'].prices[0].output_per_million).toBe(15);
    // Anthropic's one-hour cache writes cost twice the input, the five-minute ones 1.25 times.
    expect(byModel['claude-sonnet-4-5'].prices[0]).toMatchObject({
      cache_write_per_million: 3.75,
      cache_write_1h_per_million: 6,
    });
    // Mapped to a name no price list knows: served, and said to be unpriced.
    expect(byModel['gpt-mapped']).toMatchObject({ channels: 1, prices: [], unpriced_channels: 1 });
  });

  it("narrows to a key's allowlist, and does not find another person's key", async () => {
    const owner = new ConsoleClient(harness.baseUrl);
    await owner.register('narrow@example.com');
    const limited = await owner.createToken('limited', { models: ['gpt-4o-mini'] });
    const open = await owner.createToken('open');
    const narrowed = await owner.call('GET', `/api/models/prices?token_id=${limited.id}`);
    expect(narrowed.body.items.map((item: any) => item.model)).toEqual(['gpt-4o-mini']);
    const everything = await owner.call('GET', `/api/models/prices?token_id=${open.id}`);
    expect(everything.body.items).toHaveLength(3);

    const stranger = new ConsoleClient(harness.baseUrl);
    await stranger.register('stranger@example.com');
    const hidden = await stranger.call('GET', `/api/models/prices?token_id=${limited.id}`);
    expect(hidden.status).toBe(404);
    expect(hidden.body.error.code).toBe('not_found');
    expect((await new ConsoleClient(harness.baseUrl).call('GET', '/api/models/prices')).status).toBe(401);
  });
});
