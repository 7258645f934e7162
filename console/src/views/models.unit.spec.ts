// @vitest-environment happy-dom

import type { ModelCatalogEntry } from '@contracts/console-api-models.ts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeApi } from '../testing/fake-api.ts';
import { mountPage, settle } from '../testing/mount.ts';
import ModelsView from './ModelsView.vue';

afterEach(() => {
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
});

const price = (input: number, output: number) => ({
  source: 'genai-prices' as const,
  input_per_million: input,
  output_per_million: output,
  cache_read_per_million: input / 10,
  cache_write_per_million: input * 1.25,
  cache_write_1h_per_million: input * 2,
  per_request: 0,
});

const everything: ModelCatalogEntry[] = [
  { model: 'claude-sonnet-4-5', channels: 2, prices: [price(3, 15), price(3.3, 16.5)], unpriced_channels: 0 },
  { model: 'gpt-4o-mini', channels: 1, prices: [price(0.15, 0.6)], unpriced_channels: 0 },
  { model: 'house-model', channels: 1, prices: [], unpriced_channels: 1 },
];

describe('ModelsView', () => {
  it("shows each model's prices, the channel-dependent and the unpriced ones, and narrows to a picked key", async () => {
    const asked: string[] = [];
    fakeApi({
      'GET /models/prices': (call) => {
        asked.push(call.query.get('token_id') ?? '');
        return { items: call.query.get('token_id') === 'k1' ? everything.slice(1, 2) : everything };
      },
      'GET /tokens': () => ({ items: [{ id: 'k1', name: 'ci', status: 'active' }] }),
    });
    const { wrapper } = await mountPage(ModelsView, { path: '/models', user: { role: 'user' } });
    await settle();
    const rows = wrapper.findAll('[data-test=models-table] tbody tr');
    expect(rows.map((row) => row.attributes('data-model'))).toEqual([
      'claude-sonnet-4-5',
      'claude-sonnet-4-5',
      'gpt-4o-mini',
      'house-model',
    ]);
    expect(rows[0]!.text()).toContain('$3.00');
    expect(rows[0]!.text()).toContain('$15.00');
    expect(rows[0]!.text()).toContain('$6.00');
    expect(rows[0]!.text()).toContain('price depends on the channel (2 serve it)');
    expect(rows[2]!.text()).toContain('$0.15');
    expect(rows[2]!.text()).not.toContain('depends on the channel');
    expect(rows[3]!.find('[data-test=unpriced]').text()).toContain('No known price');

    await wrapper.find('[data-test=models-key]').setValue('k1');
    await settle();
    expect(asked).toEqual(['', 'k1']);
    expect(wrapper.findAll('[data-test=models-table] tbody tr').map((row) => row.attributes('data-model'))).toEqual([
      'gpt-4o-mini',
    ]);
  });
});
