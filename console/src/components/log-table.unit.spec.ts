// @vitest-environment happy-dom
/** The usage log's cost column: USD for a priced request, "—" with the reason for an unpriced one. */

import type { UsageLogEntry } from '@contracts/console-api.ts';
import { mount } from '@vue/test-utils';
import { describe, expect, it } from 'vitest';
import { i18n, setLocale } from '../locales/index.ts';
import LogTable from './LogTable.vue';

const entry = (request_id: string, cost_usd: number | null): UsageLogEntry => ({
  request_id,
  started_at: '2025-03-10T10:00:00.000Z',
  token_id: 't1',
  token_name: 'laptop',
  endpoint: 'chat.completions',
  model_requested: 'gpt-4o-mini',
  model_served: 'gpt-4o-mini',
  stream: false,
  status: 200,
  error_type: null,
  prompt_tokens: 21,
  completion_tokens: 10,
  usage_estimated: false,
  cost_usd,
  latency_ms: 120,
  first_token_ms: null,
});

describe('LogTable', () => {
  it('shows each request’s cost, and marks an unpriced one', () => {
    for (const [locale, tooltip] of [
      ['en', 'No price for this model'],
      ['zh-CN', '此模型没有价格'],
    ] as const) {
      setLocale(locale);
      const wrapper = mount(LogTable, {
        props: { items: [entry('priced', 0.00000915), entry('unpriced', null)] },
        global: { plugins: [i18n] },
      });
      const cost = (id: string) => wrapper.find(`[data-request=${id}] [data-test=cost]`);
      expect(cost('priced').text()).toContain('0.000009');
      expect(cost('unpriced').text()).toBe('—');
      expect(cost('unpriced').find('span').attributes('title')).toContain(tooltip);
      wrapper.unmount();
    }
    setLocale('en');
  });
});
