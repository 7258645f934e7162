// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LOCALE_STORAGE_KEY, setLocale } from '../locales/index.ts';
import { fakeApi, reply, sampleToken } from '../testing/fake-api.ts';
import { mountPage, settle } from '../testing/mount.ts';
import SignInView from './SignInView.vue';
import TokensView from './TokensView.vue';

afterEach(() => {
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
  setLocale('en');
});

describe('TokensView', () => {
  it('lists keys, creates one and shows its key once with a warning and a copy button', async () => {
    const writeText = vi.fn().mockResolvedValue(undefined);
    vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } });
    vi.stubGlobal('isSecureContext', true);
    const { calls } = fakeApi({
      'GET /tokens': () => ({ items: [sampleToken()] }),
      'POST /tokens': () =>
        reply(201, { ...sampleToken({ id: 't2', name: 'ci', models: ['gpt-4o'] }), key: 'sk-new-key' }),
    });
    const { wrapper } = await mountPage(TokensView, { path: '/tokens', user: { role: 'user' } });
    await settle();
    expect(wrapper.find('tr[data-token=laptop]').text()).toContain('sk-abcd…wxyz');
    expect(wrapper.find('tr[data-token=laptop]').text()).toContain('Active');

    await wrapper.find('[data-test=create-token]').trigger('click');
    await settle();
    const form = wrapper.find('[data-test=create-token-form]');
    const inputs = form.findAll('input');
    await inputs[0]!.setValue('ci');
    await inputs[2]!.setValue('1000');
    await inputs[3]!.setValue('gpt-4o, o3');
    await form.trigger('submit');
    await settle();
    expect(calls.find((call) => call.method === 'POST')!.body).toEqual({
      name: 'ci',
      quota: 1000,
      models: ['gpt-4o', 'o3'],
    });

    const key = wrapper.find('[data-test=new-key]');
    expect((key.element as HTMLInputElement).value).toBe('sk-new-key');
    expect(wrapper.text()).toContain('will not be shown again');
    await wrapper.find('[data-test=copy-key]').trigger('click');
    await settle();
    expect(writeText).toHaveBeenCalledWith('sk-new-key');
    expect(wrapper.find('[data-test=copy-key]').text()).toBe('Copied');
    await wrapper.find('[data-test=key-done]').trigger('click');
    await settle();
    expect(wrapper.find('[data-test=new-key]').exists()).toBe(false);
    expect(wrapper.html()).not.toContain('sk-new-key');
  });

  it('revokes only after the confirmation', async () => {
    const { calls } = fakeApi({
      'GET /tokens': () => ({ items: [sampleToken()] }),
      'DELETE /tokens/t1': () => sampleToken({ status: 'revoked' }),
    });
    const { wrapper } = await mountPage(TokensView, { path: '/tokens', user: { role: 'user' } });
    await settle();
    await wrapper.find('[data-test=revoke]').trigger('click');
    await settle();
    expect(calls.some((call) => call.method === 'DELETE')).toBe(false);
    expect(wrapper.text()).toContain('Revoke this key?');
    await wrapper.find('[data-test=confirm]').trigger('click');
    await settle();
    expect(calls.some((call) => call.method === 'DELETE')).toBe(true);
    expect(wrapper.find('tr[data-token=laptop]').text()).toContain('Revoked');
    expect(wrapper.find('[data-test=revoke]').exists()).toBe(false);
  });

  it('says so when there are no keys yet', async () => {
    fakeApi({ 'GET /tokens': () => ({ items: [] }) });
    const { wrapper } = await mountPage(TokensView, { path: '/tokens', user: { role: 'user' } });
    await settle();
    expect(wrapper.find('[data-test=empty]').text()).toContain('No API keys yet');
  });
});

describe('SignInView', () => {
  it('explains an expired session, and translates a wrong password', async () => {
    fakeApi({
      'POST /auth/login': () =>
        reply(401, { error: { code: 'invalid_credentials', message: 'Email or password is incorrect.' } }),
    });
    const { wrapper } = await mountPage(SignInView, { path: '/sign-in?expired=1' });
    expect(wrapper.find('[data-test=notice]').text()).toMatch(/session has expired/);
    setLocale('zh-CN');
    await settle();
    expect(localStorage.getItem(LOCALE_STORAGE_KEY)).toBe('zh-CN');
    await wrapper.find('input[type=email]').setValue('ada@example.com');
    await wrapper.find('input[type=password]').setValue('wrong');
    await wrapper.find('form').trigger('submit');
    await settle();
    expect(wrapper.find('[data-test=form-error]').text()).toBe('邮箱或密码不正确。');
    expect(wrapper.find('h1').text()).toBe('登录');
  });

  it('signs in and goes back to the page asked for, never to another site', async () => {
    fakeApi({ 'POST /auth/login': () => ({ id: 'u1', email: 'ada@example.com', name: 'ada', role: 'user' }) });
    const { wrapper, router } = await mountPage(SignInView, { path: '/sign-in?redirect=//evil.example' });
    await wrapper.find('input[type=email]').setValue('ada@example.com');
    await wrapper.find('input[type=password]').setValue('right password');
    await wrapper.find('form').trigger('submit');
    // The overview is a lazy chunk (with ECharts): its first import can take a while.
    await vi.waitFor(() => expect(router.currentRoute.value.path).toBe('/overview'), { timeout: 15_000 });
  });
});
