// @vitest-environment happy-dom
/**
 * The usage log page: the request id searched as it is typed, the count of matches, seconds in the
 * time with the full timestamp on hover, the error message beside its type, a row's details with its
 * upstream calls, and for administrators the user and channel columns and a filter by another user's key.
 */
import type { UsageLogEntry } from '@contracts/console-api.ts';
import { afterEach, expect, it, vi } from 'vitest';
import { fakeApi, sampleToken } from '../testing/fake-api.ts';
import { mountPage, settle } from '../testing/mount.ts';
import UsageLogView from './UsageLogView.vue';

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
});

const failed: UsageLogEntry = {
  request_id: '0193a8c2-7f00-7000-8000-00000000abcd',
  client_request_id: 'my-trace-1',
  started_at: '2025-03-10T10:00:07.000Z',
  user_id: 'u2',
  user_email: 'bob@example.com',
  token_id: 't9',
  token_name: "bob's key",
  channel_id: 'c2',
  channel_name: 'backup',
  endpoint: 'chat.completions',
  model_requested: 'gpt-4o-mini',
  model_served: null,
  stream: false,
  status: 400,
  error_type: 'invalid_request_error',
  error_message: 'max_tokens is too large',
  prompt_tokens: 0,
  completion_tokens: 0,
  cached_tokens: 0,
  reasoning_tokens: 0,
  usage_estimated: false,
  cost_usd: 0,
  latency_ms: 412,
  first_token_ms: null,
  attempts: [
    { channel_id: 'c1', channel_name: 'main', status: 503, error: 'server_error', latency_ms: 40 },
    { channel_id: 'c2', channel_name: 'backup', status: 400, error: null, latency_ms: 350 },
  ],
};

it('searches the request id as typed, counts the matches and shows a request in full', async () => {
  const { calls } = fakeApi({
    'GET /tokens': () => ({ items: [sampleToken()] }),
    'GET /users': () => ({ items: [] }),
    'GET /usage/logs': () => ({ items: [failed], next_cursor: null, total: 1234 }),
  });
  const { wrapper } = await mountPage(UsageLogView, { path: '/logs', user: { role: 'admin' } });
  await settle();
  expect(wrapper.find('[data-test=log-total]').text()).toContain('1,234');
  const row = wrapper.find(`[data-request="${failed.request_id}"]`);
  expect(row.find('[data-test=time]').text()).toMatch(/\d{2}:\d{2}:\d{2}/);
  expect(row.find('[data-test=time]').attributes('title')).toContain('2025-03-10T10:00:07.000Z');
  expect(row.find('[data-test=status]').text()).toContain('max_tokens is too large');
  expect(row.find('[data-test=user]').text()).toBe('bob@example.com');
  expect(row.find('[data-test=channel]').text()).toBe('backup');

  await row.find('[data-test=open-details]').trigger('click');
  await settle();
  const details = wrapper.find('[data-test=log-details]');
  expect(details.find('[data-test=detail-request-id]').text()).toBe(failed.request_id);
  expect(details.text()).toContain('my-trace-1');
  expect(details.find('[data-test=detail-error]').text()).toBe('max_tokens is too large');
  const attempts = details.findAll('[data-test=attempts] li').map((item) => item.text());
  expect(attempts).toHaveLength(2);
  expect(attempts[0]).toContain('main');
  expect(attempts[0]).toContain('server_error');

  // Another user's key: the filter names it, and looks among everyone's requests.
  const before = calls.filter((call) => call.path === '/usage/logs').length;
  await details.find('[data-test=filter-this-key]').trigger('click');
  await settle();
  const byKey = calls.filter((call) => call.path === '/usage/logs').slice(before);
  expect(byKey.at(-1)!.query.get('token_id')).toBe('t9');
  expect(byKey.at(-1)!.query.get('user_id')).toBe('all');
  const keyFilter = wrapper.find('[data-test=filter-key]');
  expect((keyFilter.element as HTMLSelectElement).value).toBe('t9');
  expect(keyFilter.find('option[value=t9]').text()).toContain("bob's key");

  vi.useFakeTimers();
  await wrapper.find('[data-test=filter-request-id]').setValue('my-trace-1');
  expect(calls.at(-1)!.query.get('request_id')).toBeNull();
  await vi.advanceTimersByTimeAsync(400);
  expect(calls.at(-1)!.query.get('request_id')).toBe('my-trace-1');
});

it('shows a user neither the user nor the channel column', async () => {
  fakeApi({
    'GET /tokens': () => ({ items: [] }),
    'GET /usage/logs': () => ({
      items: [{ ...failed, user_email: undefined, channel_id: null }],
      next_cursor: null,
      total: 1,
    }),
  });
  const { wrapper } = await mountPage(UsageLogView, { path: '/logs', user: { role: 'user' } });
  await settle();
  expect(wrapper.find('[data-test=user]').exists()).toBe(false);
  expect(wrapper.find('[data-test=channel]').exists()).toBe(false);
  // One request is singular ("1 matching requests" was not).
  expect(wrapper.find('[data-test=log-total]').text()).toBe('1 matching request');
});
