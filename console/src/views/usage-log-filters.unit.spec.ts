// @vitest-environment happy-dom
/**
 * The usage log page's filters by endpoint, streaming and error type: each is sent as the API names
 * it as soon as it is picked (the error type once typing pauses), and left out when it is "any", in
 * English and in Chinese; a request's details say what it wrote to the provider's cache.
 */
import type { UsageLogEntry } from '@contracts/console-api.ts';
import { afterEach, expect, it, vi } from 'vitest';
import { setLocale } from '../locales/index.ts';
import { fakeApi } from '../testing/fake-api.ts';
import { mountPage, settle } from '../testing/mount.ts';
import UsageLogView from './UsageLogView.vue';

afterEach(() => {
  vi.useRealTimers();
  document.body.innerHTML = '';
});

const answered: UsageLogEntry = {
  request_id: '0193a8c2-7f00-7000-8000-00000000beef',
  started_at: '2025-03-10T10:00:07.000Z',
  token_id: 't1',
  endpoint: 'messages',
  model_requested: 'claude-sonnet-4-5',
  model_served: 'claude-sonnet-4-5',
  stream: true,
  status: 200,
  error_type: null,
  prompt_tokens: 2060,
  completion_tokens: 30,
  cached_tokens: 512,
  cache_write_tokens: 1536,
  reasoning_tokens: 0,
  usage_estimated: false,
  cost_usd: 0.0123,
  latency_ms: 900,
  first_token_ms: 200,
};

function mountLog() {
  const { calls } = fakeApi({
    'GET /tokens': () => ({ items: [] }),
    'GET /usage/logs': () => ({ items: [answered], next_cursor: null, total: 1 }),
  });
  const lastQuery = () => calls.filter((call) => call.path === '/usage/logs').at(-1)!.query;
  return { calls, lastQuery };
}

it('sends the endpoint, streaming and error type filters as picked, and none when any', async () => {
  const { lastQuery } = mountLog();
  const { wrapper } = await mountPage(UsageLogView, { path: '/logs', user: { role: 'user' } });
  await settle();
  expect(lastQuery().get('endpoint')).toBeNull();
  expect(lastQuery().get('streamed')).toBeNull();

  await wrapper.find('[data-test=filter-endpoint]').setValue('messages');
  await settle();
  expect(lastQuery().get('endpoint')).toBe('messages');
  await wrapper.find('[data-test=filter-streamed]').setValue('false');
  await settle();
  expect(lastQuery().get('streamed')).toBe('false');
  expect(lastQuery().get('endpoint')).toBe('messages');

  vi.useFakeTimers();
  await wrapper.find('[data-test=filter-error-type]').setValue(' rate_limit_error ');
  expect(lastQuery().get('error_type')).toBeNull();
  await vi.advanceTimersByTimeAsync(400);
  expect(lastQuery().get('error_type')).toBe('rate_limit_error');
  vi.useRealTimers();

  await wrapper.find('[data-test=filter-endpoint]').setValue('');
  await settle();
  expect(lastQuery().get('endpoint')).toBeNull();
  expect(lastQuery().get('streamed')).toBe('false');
  // The gateway's own error codes are offered as the type is typed.
  const offered = wrapper.findAll('datalist option').map((option) => option.attributes('value'));
  expect(offered).toContain('budget_exceeded');
});

it('labels the filters in Chinese, and shows the cache writes in a request’s details', async () => {
  mountLog();
  const { wrapper } = await mountPage(UsageLogView, { path: '/logs', user: { role: 'user' } });
  await settle();
  setLocale('zh-CN');
  await settle();
  const labels = wrapper.findAll('[data-test=log-filters] label').map((label) => label.text());
  expect(labels).toEqual(expect.arrayContaining(['接口', '流式', '错误类型']));
  expect(wrapper.find('[data-test=filter-streamed] option[value=false]').text()).toBe('非流式');
  setLocale('en');
  await settle();
  await wrapper.find(`[data-request="${answered.request_id}"] [data-test=open-details]`).trigger('click');
  await settle();
  const tokens = wrapper.find('[data-test=detail-tokens]').text();
  expect(tokens).toContain('512 from cache');
  expect(tokens).toContain('1,536 written to cache');
});
