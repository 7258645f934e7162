// @vitest-environment happy-dom
/**
 * A channel's test result: an unreachable upstream is said once ("Could not reach the upstream: Could
 * not reach the upstream provider…" said it twice), and a channel whose test just failed no longer
 * reads "Healthy" while its circuit breaker has not yet opened.
 */
import type { ChannelTestResult, ChannelView } from '@contracts/console-api.ts';
import { mount } from '@vue/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { i18n, setLocale } from '../locales/index.ts';
import ChannelRow from './ChannelRow.vue';

afterEach(() => setLocale('en'));

const channel: ChannelView = {
  id: 'c1',
  name: 'nowhere',
  type: 'openai',
  base_url: 'http://127.0.0.1:9/v1',
  key_hint: '••••abcd',
  models: ['m'],
  model_mapping: {},
  priority: 0,
  weight: 1,
  thinking_to_content: false,
  enabled: true,
  source: 'console',
  updated_at: '2025-01-01T00:00:00.000Z',
  health: { state: 'closed', consecutive_failures: 0 },
} as ChannelView;

const unreachable: ChannelTestResult = {
  ok: false,
  status: 0,
  latency_ms: 3,
  model: 'm',
  error:
    "Could not reach the upstream provider (ECONNREFUSED). Try again; if it persists, check the channel's base URL.",
};

const row = (result: ChannelTestResult | undefined) =>
  mount(
    { components: { ChannelRow }, template: '<table><tbody><ChannelRow v-bind="$attrs" /></tbody></table>' },
    { props: { channel, result, testing: false }, global: { plugins: [i18n] } },
  );

describe('ChannelRow', () => {
  it('says an unreachable upstream once, with its cause, in the page’s language', () => {
    const text = row(unreachable).find('[data-test=test-result]').text();
    expect(text.match(/Could not reach the upstream/g)).toHaveLength(1);
    expect(text).toContain('ECONNREFUSED');
    setLocale('zh-CN');
    const zh = row(unreachable).find('[data-test=test-result]').text();
    expect(zh).toContain('无法连接上游');
    expect(zh).toContain('ECONNREFUSED');
    expect(zh).not.toContain('Could not reach');
  });

  it('does not call a channel whose test just failed “Healthy”', () => {
    expect(row(undefined).find('[data-test=channel-health]').text()).toContain('Healthy');
    const health = row(unreachable).find('[data-test=channel-health]');
    expect(health.text()).not.toContain('Healthy');
    expect(health.text()).toContain('Last test failed');
    expect(health.find('.badge').classes()).toContain('badge-warn');
  });
});
