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
      'GET /models': () => ({ items: ['gpt-4o', 'o3', 'o4-mini'] }),
    });
    const { wrapper } = await mountPage(TokensView, { path: '/tokens', user: { role: 'user' } });
    await settle();
    expect(wrapper.find('tr[data-token=laptop]').text()).toContain('sk-abcd…wxyz');
    expect(wrapper.find('tr[data-token=laptop]').text()).toContain('Active');

    await wrapper.find('[data-test=create-token]').trigger('click');
    await settle();
    const form = wrapper.find('[data-test=create-token-form]');
    await form.find('[data-test=create-token-name]').setValue('ci');
    await form.find('[data-test=token-quota]').setValue('1000');
    await form.find('[data-model=gpt-4o]').setValue(true);
    await form.find('[data-model=o3]').setValue(true);
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

  it('edits every setting of a key, the models picked from those the channels serve, and shows limits and spend', async () => {
    const { calls } = fakeApi({
      'GET /tokens': () => ({
        items: [
          sampleToken({
            models: ['legacy-model'],
            rpm_limit: 60,
            budget_usd: 5,
            budget_period: 'monthly',
            spent_usd: 1.25,
            budget_resets_at: '2025-04-01T00:00:00.000Z',
          }),
        ],
      }),
      'GET /models': () => ({ items: ['claude-sonnet-4-5', 'gpt-4o-mini'] }),
      'PATCH /tokens/t1': (call) =>
        (call.body as { quota: unknown }).quota === -1
          ? reply(400, { error: { code: 'invalid_request', message: 'quota: must be at least 0', field: 'quota' } })
          : sampleToken({ ...(call.body as object), spent_usd: 1.25 }),
    });
    const { wrapper } = await mountPage(TokensView, { path: '/tokens', user: { role: 'user' } });
    await settle();
    const row = wrapper.find('tr[data-token=laptop]');
    expect(row.find('[data-test=budget]').text()).toBe('$1.25 / $5.00 a month');
    expect(row.find('[data-test=limits]').text()).toBe('60 req/min');

    await row.find('[data-test=edit]').trigger('click');
    await settle();
    const form = wrapper.find('[data-test=edit-token-form]');
    expect((form.find('[data-test=token-budget]').element as HTMLInputElement).value).toBe('5');
    const boxes = form.findAll('[data-test=token-models] input[type=checkbox]');
    expect(boxes.map((box) => box.attributes('data-model'))).toEqual([
      'claude-sonnet-4-5',
      'gpt-4o-mini',
      'legacy-model',
    ]);
    expect(boxes.map((box) => (box.element as HTMLInputElement).checked)).toEqual([false, false, true]);

    await form.find('[data-test=token-quota]').setValue('-1');
    await form.trigger('submit');
    await settle();
    expect(form.text()).toContain('quota: must be at least 0');

    await form.find('[data-test=token-quota]').setValue('');
    await form.find('[data-test=token-budget]').setValue('2.5');
    await form.find('[data-test=token-period]').setValue('daily');
    await form.find('[data-model=legacy-model]').setValue(false);
    await form.find('[data-model=gpt-4o-mini]').setValue(true);
    await form.find('[data-test=token-rpm]').setValue('');
    await form.find('[data-test=token-tpm]').setValue('5000');
    await form.find('[data-test=token-ips]').setValue('10.0.0.0/8, 203.0.113.7');
    await form.find('[data-test=token-expires]').setValue('2030-01-31');
    await form.find('[data-test=token-metadata]').setValue('env prod');
    await form.trigger('submit');
    await settle();
    expect(form.text()).toContain('Write each line as key=value');
    await form.find('[data-test=token-metadata]').setValue('env=prod\nteam = search\n');
    await form.trigger('submit');
    await settle();
    const patches = calls.filter((call) => call.method === 'PATCH');
    expect(patches.at(-1)!.body).toEqual({
      expires_at: new Date('2030-01-31T23:59:59').toISOString(),
      quota: null,
      budget_usd: 2.5,
      budget_period: 'daily',
      models: ['gpt-4o-mini'],
      ip_allowlist: ['10.0.0.0/8', '203.0.113.7'],
      rpm_limit: null,
      tpm_limit: 5000,
      metadata: { env: 'prod', team: 'search' },
      payload_capture_days: 0,
    });
    expect(wrapper.find('[data-test=edit-token-form]').exists()).toBe(false);
    expect(wrapper.find('tr[data-token=laptop] [data-test=budget]').text()).toBe('$1.25 / $2.50 a day');
    expect(wrapper.find('tr[data-token=laptop] [data-test=limits]').text()).toContain('5,000 tokens/min');
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
    // Revoked keys are hidden until asked for.
    expect(wrapper.find('tr[data-token=laptop]').exists()).toBe(false);
    expect(wrapper.find('[data-test=all-revoked]').exists()).toBe(true);
    await wrapper.find('[data-test=hide-revoked]').setValue(false);
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
