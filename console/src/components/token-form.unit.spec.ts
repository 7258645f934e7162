// @vitest-environment happy-dom
/**
 * Creating and editing a key are one form: both offer the budget with its period and the models the
 * channels serve as tick boxes (the create dialog had no budget and took the models as free text).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setLocale } from '../locales/index.ts';
import { fakeApi, reply, sampleToken } from '../testing/fake-api.ts';
import { mountPage, settle } from '../testing/mount.ts';
import TokensView from '../views/TokensView.vue';

afterEach(() => {
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
  setLocale('en');
});

const fields = [
  'token-expires',
  'token-quota',
  'token-budget',
  'token-period',
  'token-models',
  'token-ips',
  'token-rpm',
  'token-tpm',
  'token-capture',
];

describe('the key form', () => {
  it('creates a key with a budget, its period and models ticked from those the channels serve', async () => {
    const { calls } = fakeApi({
      'GET /tokens': () => ({ items: [] }),
      'GET /models': () => ({ items: ['claude-sonnet-4-5', 'gpt-4o-mini'] }),
      'POST /tokens': () => reply(201, { ...sampleToken({ name: 'ci' }), key: 'sk-x' }),
    });
    const { wrapper } = await mountPage(TokensView, { path: '/tokens', user: { role: 'user' } });
    await settle();
    await wrapper.find('[data-test=create-token]').trigger('click');
    await settle();
    const form = wrapper.find('[data-test=create-token-form]');
    for (const field of fields) expect(form.find(`[data-test=${field}]`).exists(), field).toBe(true);
    const boxes = form.findAll('[data-test=token-models] input[type=checkbox]');
    expect(boxes.map((box) => box.attributes('data-model'))).toEqual(['claude-sonnet-4-5', 'gpt-4o-mini']);
    await form.find('[data-test=create-token-name]').setValue('ci');
    await form.find('[data-test=token-budget]').setValue('5');
    await form.find('[data-test=token-period]').setValue('monthly');
    await form.find('[data-model=gpt-4o-mini]').setValue(true);
    await form.find('[data-test=token-capture]').setValue('7');
    await form.trigger('submit');
    await settle();
    expect(calls.find((call) => call.method === 'POST')!.body).toEqual({
      name: 'ci',
      budget_usd: 5,
      budget_period: 'monthly',
      models: ['gpt-4o-mini'],
      payload_capture_days: 7,
    });
  });

  it('edits with the same fields as creation', async () => {
    fakeApi({
      'GET /tokens': () => ({ items: [sampleToken()] }),
      'GET /models': () => ({ items: ['gpt-4o-mini'] }),
    });
    const { wrapper } = await mountPage(TokensView, { path: '/tokens', user: { role: 'user' } });
    await settle();
    await wrapper.find('[data-test=edit]').trigger('click');
    await settle();
    const form = wrapper.find('[data-test=edit-token-form]');
    for (const field of fields) expect(form.find(`[data-test=${field}]`).exists(), field).toBe(true);
  });

  it('warns, without refusing, when another key already has the name', async () => {
    fakeApi({ 'GET /tokens': () => ({ items: [sampleToken()] }), 'GET /models': () => ({ items: [] }) });
    const { wrapper } = await mountPage(TokensView, { path: '/tokens', user: { role: 'user' } });
    await settle();
    await wrapper.find('[data-test=create-token]').trigger('click');
    await settle();
    await wrapper.find('[data-test=create-token-name]').setValue(' laptop ');
    expect(wrapper.find('[data-test=name-taken]').text()).toContain('Another key is already named “laptop”');
    expect(wrapper.find('[data-test=create-token-submit]').attributes('disabled')).toBeUndefined();
  });
});
