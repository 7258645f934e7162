// @vitest-environment happy-dom

import type { ChannelView } from '@contracts/console-api.ts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeApi } from '../testing/fake-api.ts';
import { mountPage, settle } from '../testing/mount.ts';
import ChannelsView from './ChannelsView.vue';

afterEach(() => {
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
});

const channel = (overrides: Partial<ChannelView>): ChannelView => ({
  id: 'c1',
  name: 'internal',
  type: 'openai',
  base_url: 'http://10.0.0.5:8000/v1',
  key_hint: '••••abcd',
  models: ['llama'],
  model_mapping: {},
  priority: 0,
  weight: 1,
  thinking_to_content: false,
  enabled: true,
  source: 'console',
  updated_at: '2025-01-01T00:00:00.000Z',
  ...overrides,
});

describe('ChannelsView', () => {
  it('shows a channel from the config file read-only, saying where to change it', async () => {
    fakeApi({ 'GET /channels': () => ({ items: [channel({ id: 'c2', name: 'from-file', source: 'config' })] }) });
    const { wrapper } = await mountPage(ChannelsView, { path: '/admin/channels', user: { role: 'admin' } });
    await settle();
    const row = wrapper.find('tr[data-channel=from-file]');
    expect(row.find('[data-test=channel-source]').text()).toBe('Config file');
    expect(row.find('[data-test=config-note]').text()).toMatch(/config file \(GATEWAY_CONFIG\): change it there/);
    for (const action of ['edit-channel', 'toggle-channel', 'delete-channel']) {
      expect(row.find(`[data-test=${action}]`).exists()).toBe(false);
    }
    expect(row.find('[data-test=test-channel]').exists()).toBe(true);
  });

  it('saves a new weight alone: the unchanged base URL is not sent again', async () => {
    const stored = channel({});
    const { calls } = fakeApi({
      'GET /channels': () => ({ items: [stored] }),
      'PATCH /channels/c1': (call) => ({ ...stored, ...(call.body as object) }),
    });
    const { wrapper } = await mountPage(ChannelsView, { path: '/admin/channels', user: { role: 'admin' } });
    await settle();
    const row = wrapper.find('tr[data-channel=internal]');
    expect(row.find('[data-test=channel-source]').exists()).toBe(false);
    await row.find('[data-test=edit-channel]').trigger('click');
    await settle();
    const form = wrapper.find('[data-test=channel-form]');
    await form.find('input[min="0"]').setValue('4');
    await form.trigger('submit');
    await settle();
    expect(calls.find((call) => call.method === 'PATCH')!.body).toEqual({ weight: 4 });
  });

  it('tests every channel at once, shows each one’s last 24 hours, and words an unreachable upstream', async () => {
    const { calls } = fakeApi({
      'GET /channels': () => ({
        items: [channel({}), channel({ id: 'c2', name: 'quiet' }), channel({ id: 'c3', name: 'once' })],
      }),
      'GET /channels/usage': () => ({
        since: '2025-01-01T00:00:00.000Z',
        items: [
          { channel_id: 'c1', calls: 200, errors: 5, average_latency_ms: 420 },
          { channel_id: 'c3', calls: 1, errors: 0, average_latency_ms: 90 },
        ],
      }),
      'POST /channels/c3/test': () => ({ ok: true, status: 200, model: 'llama', latency_ms: 80, error: null }),
      'POST /channels/c1/test': () => ({ ok: true, status: 200, model: 'llama', latency_ms: 120, error: null }),
      'POST /channels/c2/test': () => ({
        ok: false,
        status: 0,
        model: 'llama',
        latency_ms: 3000,
        error: 'connect ECONNREFUSED',
      }),
    });
    const { wrapper } = await mountPage(ChannelsView, { path: '/admin/channels', user: { role: 'admin' } });
    await settle();
    expect(wrapper.find('tr[data-channel=internal] [data-test=channel-usage]').text()).toBe(
      'Last 24 h: 200 calls · 2.5% errors · 420 ms average',
    );
    expect(wrapper.find('tr[data-channel=quiet] [data-test=channel-usage]').text()).toBe('No calls in the last 24 h');
    expect(wrapper.find('tr[data-channel=once] [data-test=channel-usage]').text()).toBe(
      'Last 24 h: 1 call · 0% errors · 90 ms average',
    );
    await wrapper.find('[data-test=test-all]').trigger('click');
    await settle();
    expect(calls.filter((call) => call.method === 'POST').map((call) => call.path)).toEqual([
      '/channels/c1/test',
      '/channels/c2/test',
      '/channels/c3/test',
    ]);
    expect(wrapper.find('tr[data-channel=internal] [data-test=test-result]').text()).toContain('OK');
    const failed = wrapper.find('tr[data-channel=quiet] [data-test=test-result]').text();
    expect(failed).toBe('Could not reach the upstream: connect ECONNREFUSED');
    expect(failed).not.toContain('(0)');
  });
});

describe('the empty channel form', () => {
  it('flags every missing field at once, and sends nothing', async () => {
    const { calls } = fakeApi({ 'GET /channels': () => ({ items: [] }) });
    const { wrapper } = await mountPage(ChannelsView, { path: '/admin/channels', user: { role: 'admin' } });
    await settle();
    await wrapper.find('[data-test=add-channel]').trigger('click');
    await settle();
    const form = wrapper.find('[data-test=channel-form]');
    await form.trigger('submit');
    await settle();
    expect(form.findAll('.field-error').map((error) => error.text())).toEqual([
      'The name is required.',
      'The upstream key is required.',
      'The model list is required.',
    ]);
    expect(calls.filter((call) => call.method === 'POST')).toEqual([]);
    // A field filled in loses its flag at the next try; the others keep theirs.
    await form.find('input[type=text]').setValue('main');
    await form.trigger('submit');
    await settle();
    expect(form.findAll('.field-error')).toHaveLength(2);
  });
});
