// @vitest-environment happy-dom

import type { UsageOverview } from '@contracts/console-api.ts';
import { createPinia } from 'pinia';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMemoryHistory } from 'vue-router';
import AppShell from '../components/AppShell.vue';
import { createAppRouter, navItems } from '../router.ts';
import { fakeApi } from '../testing/fake-api.ts';
import { mountPage, settle } from '../testing/mount.ts';
import OverviewView from './OverviewView.vue';

// No canvas in happy-dom: the charts' ECharts instance is replaced by a recorder of options.
const options: unknown[] = [];
vi.mock('../composables/use-echarts.ts', () => ({
  useEcharts: () => ({
    setOption: (option: unknown) => options.push(option),
    resize: () => undefined,
    width: { value: 800 },
  }),
}));

afterEach(() => {
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
  options.length = 0;
});

const totals = (calls: number, errors: number, prompt: number, completion: number) => ({
  calls,
  errors,
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
  cost_usd: calls * 0.0125,
  unpriced_requests: 0,
});

function overview(calls: number): UsageOverview {
  const hour = '2025-03-10T10:00:00.000Z';
  return {
    from: '2025-03-10T00:00:00.000Z',
    to: '2025-03-11T00:00:00.000Z',
    granularity: 'hour',
    totals: totals(calls, calls ? 1 : 0, calls * 10, calls * 5),
    series: calls
      ? [
          { bucket: hour, model: 'gpt-4o', ...totals(calls - 1, 1, (calls - 1) * 10, (calls - 1) * 5) },
          { bucket: hour, model: 'claude', ...totals(1, 0, 10, 5) },
        ]
      : [],
    by_model: calls
      ? [
          { model: 'gpt-4o', ...totals(calls - 1, 1, 30, 15) },
          { model: 'claude', ...totals(1, 0, 10, 5) },
        ]
      : [],
    latency: { average_ms: calls ? 420 : null, p95_ms: calls ? 1500 : null },
    by_token: calls ? [{ token_id: 't1', token_name: 'laptop', key_hint: 'sk-a…b', ...totals(calls, 1, 40, 20) }] : [],
  };
}

describe('OverviewView', () => {
  it('shows the cards and draws calls and tokens stacked by model', async () => {
    fakeApi({ 'GET /usage/overview': () => overview(4) });
    const { wrapper } = await mountPage(OverviewView, { path: '/overview', user: { role: 'user' } });
    await settle();
    expect(wrapper.find('[data-stat=calls] .stat-value').text()).toBe('4');
    expect(wrapper.find('[data-stat=spend] .stat-value').text()).toBe('$0.05');
    expect(wrapper.find('[data-stat=spend] .stat-detail').exists()).toBe(false);
    expect(wrapper.find('[data-chart-summary=spend]').text()).toContain('gpt-4o $0.0375');
    expect(wrapper.find('[data-stat=error-rate] .stat-value').text()).toBe('25%');
    expect(wrapper.find('[data-stat=average-latency] .stat-value').text()).toBe('420 ms');
    expect(wrapper.find('[data-stat=p95-latency] .stat-value').text()).toBe('1.5 s');
    expect(wrapper.find('[data-chart-summary=calls]').attributes('data-total')).toBe('4');
    // One chart component for both measures: each its own total, title and busy buckets.
    expect(wrapper.find('[data-chart-summary=tokens]').attributes('data-total')).toBe('60');
    expect(wrapper.findAll('.chart-title').map((title) => title.text())).toContain('Tokens over time');
    expect(wrapper.find('[data-chart-summary=calls]').text()).toMatch(/^4 calls over 24 buckets, by model \(.+: 4\)$/);
    expect(wrapper.find('[data-chart-summary=tokens]').text()).toMatch(
      /^60 tokens over 24 buckets, by model \(.+: 60\)$/,
    );
    const series = options.map((option) => (option as { series: Array<{ name?: string; type: string }> }).series);
    expect(series[0]!.map((each) => each.name)).toEqual(['gpt-4o', 'claude']);
    expect(series[0]![0]!.type).toBe('bar');
    expect(series[1]![0]!.type).toBe('line');
    expect(series.map((each) => each[0]!.type)).toContain('pie');
    expect(wrapper.find('[data-chart-summary=top-keys]').text()).toContain('laptop');
    expect(wrapper.find('[data-test=scope]').exists()).toBe(false);
  });

  it("names each top key's owner when the keys belong to several people", async () => {
    const several = overview(4);
    several.by_token = [
      { token_id: 't1', token_name: 'laptop', owner_email: 'ann@example.com', ...totals(3, 0, 30, 15) },
      { token_id: 't2', token_name: 'laptop', owner_email: 'bob@example.com', ...totals(1, 0, 10, 5) },
    ];
    fakeApi({ 'GET /usage/overview': () => several });
    const { wrapper } = await mountPage(OverviewView, { path: '/overview', user: { role: 'admin' } });
    await settle();
    const summary = wrapper.find('[data-chart-summary=top-keys]').text();
    expect(summary).toContain('laptop · ann@example.com');
    expect(summary).toContain('laptop · bob@example.com');
  });

  it('shows an empty state with no calls, and a loading state before the answer', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    fakeApi({ 'GET /usage/overview': () => overview(0) });
    const realFetch = globalThis.fetch;
    vi.stubGlobal('fetch', async (...args: Parameters<typeof fetch>) => {
      await gate;
      return realFetch(...args);
    });
    const { wrapper } = await mountPage(OverviewView, { path: '/overview', user: { role: 'user' } });
    await settle();
    expect(wrapper.find('[data-test=loading]').exists()).toBe(true);
    release();
    await settle();
    expect(wrapper.find('[data-test=empty]').text()).toContain('No calls in this range');
    expect(wrapper.find('[data-stat=error-rate] .stat-value').text()).toBe('—');
    expect(options).toHaveLength(0);
  });

  it('lets admins pick all users or one user', async () => {
    const { calls } = fakeApi({
      'GET /usage/overview': () => overview(1),
      'GET /users': () => ({ items: [{ id: 'u2', email: 'bob@example.com', name: 'bob', role: 'user' }] }),
    });
    const { wrapper } = await mountPage(OverviewView, { path: '/overview', user: { role: 'admin' } });
    await settle();
    await wrapper.find('[data-test=scope]').setValue('u2');
    await settle();
    const last = calls.filter((call) => call.path === '/usage/overview').pop()!;
    expect(last.query.get('user_id')).toBe('u2');
  });
});

describe('AppShell', () => {
  it('lists the pages of the routes’ meta, the admin pages to admins only, and opens the menu at phone width', async () => {
    fakeApi({ 'GET /usage/overview': () => overview(0) });
    const asUser = await mountPage(AppShell, { path: '/overview', user: { role: 'user' } });
    expect(asUser.wrapper.find('a[href="/admin/channels"]').exists()).toBe(false);
    asUser.wrapper.unmount();
    const asAdmin = await mountPage(AppShell, { path: '/overview', user: { role: 'admin' } });
    expect(asAdmin.wrapper.find('a[href="/admin/channels"]').exists()).toBe(true);
    // The links are the routes with `nav` in their meta, in the routes' order, named by their titles.
    const routed = asAdmin.router.options.routes.filter((route) => route.meta?.nav).map((route) => route.path);
    const links = asAdmin.wrapper.findAll('#sidebar a');
    expect(links.map((link) => link.attributes('href'))).toEqual(routed);
    expect(links.map((link) => link.text())).toEqual([
      'Overview',
      'API keys',
      'Models',
      'Usage log',
      'Sessions',
      'Account',
      'Channels',
      'Users',
    ]);
    const menu = asAdmin.wrapper.find('[data-test=menu]');
    expect(menu.attributes('aria-expanded')).toBe('false');
    await menu.trigger('click');
    expect(menu.attributes('aria-expanded')).toBe('true');
    expect(asAdmin.wrapper.find('.shell').classes()).toContain('nav-open');
  });
});

describe('the navigation from the routes', () => {
  it('lists the routes with nav meta in their order, the admin ones marked, and leaves out the others', () => {
    const router = createAppRouter(createPinia(), createMemoryHistory());
    const items = navItems(router);
    expect(items.map((item) => item.to)).toEqual([
      '/overview',
      '/tokens',
      '/models',
      '/logs',
      '/sessions',
      '/account',
      '/admin/channels',
      '/admin/users',
    ]);
    expect(items.filter((item) => item.admin).map((item) => item.icon)).toEqual(['channels', 'users']);
    expect(items.some((item) => item.to === '/sign-in' || item.to === '/:path(.*)*')).toBe(false);
  });
});
