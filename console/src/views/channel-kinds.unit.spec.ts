// @vitest-environment happy-dom

import { afterEach, describe, expect, it, vi } from 'vitest';
import { baseUrlForKind } from '../lib/channel-form.ts';
import { fakeApi } from '../testing/fake-api.ts';
import { mountPage, settle } from '../testing/mount.ts';
import ChannelsView from './ChannelsView.vue';

afterEach(() => {
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
});

describe('channel kinds in the form', () => {
  it('a kind’s default base URL follows the kind; a URL of one’s own stays', () => {
    expect(baseUrlForKind('https://api.openai.com/v1', 'gemini')).toBe('https://generativelanguage.googleapis.com');
    expect(baseUrlForKind('', 'anthropic')).toBe('https://api.anthropic.com');
    expect(baseUrlForKind('https://gemini-proxy.example.com', 'openai')).toBe('https://gemini-proxy.example.com');
  });

  it('offers Google Gemini and creates a gemini channel at Google’s base URL', async () => {
    const { calls } = fakeApi({
      'GET /channels': () => ({ items: [] }),
      'POST /channels': (call) => ({ id: 'g1', ...(call.body as object) }),
    });
    const { wrapper } = await mountPage(ChannelsView, { path: '/admin/channels', user: { role: 'admin' } });
    await settle();
    await wrapper.find('[data-test=add-channel]').trigger('click');
    await settle();
    const form = wrapper.find('[data-test=channel-form]');
    const kinds = form.findAll('select option').map((option) => option.attributes('value'));
    expect(kinds).toContain('gemini');
    await form.find('input[type=text]').setValue('google');
    await form.find('select').setValue('gemini');
    await settle();
    expect((form.find('input[type=url]').element as HTMLInputElement).value).toBe(
      'https://generativelanguage.googleapis.com',
    );
    await form.find('input[type=password]').setValue('AIza-test-key');
    await form.findAll('input[type=text]')[1]!.setValue('gemini-2.5-flash');
    await form.trigger('submit');
    await settle();
    expect(calls.find((call) => call.method === 'POST')!.body).toMatchObject({
      name: 'google',
      type: 'gemini',
      base_url: 'https://generativelanguage.googleapis.com',
      api_key: 'AIza-test-key',
      models: ['gemini-2.5-flash'],
    });
  });
});
