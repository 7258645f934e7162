// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setLocale } from '../locales/index.ts';
import { fakeApi } from '../testing/fake-api.ts';
import { mountPage, settle } from '../testing/mount.ts';
import AccountView from './AccountView.vue';
import SignInView from './SignInView.vue';
import SignUpView from './SignUpView.vue';

afterEach(() => {
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
  setLocale('en');
});

const ssoOnly = { password: false, sso: { provider: 'Keycloak', start_url: '/api/auth/sso/start' } };

describe('sign-in methods on the sign-in pages', () => {
  it('offers the provider and hides the password form when local passwords are off', async () => {
    fakeApi({ 'GET /auth/methods': () => ssoOnly });
    const { wrapper } = await mountPage(SignInView, { path: '/sign-in?redirect=/tokens' });
    await settle();
    const button = wrapper.find('[data-test=sso-sign-in]');
    expect(button.text()).toBe('Sign in with Keycloak');
    expect(button.attributes('href')).toBe('/api/auth/sso/start?redirect=%2Ftokens');
    expect(wrapper.find('form').exists()).toBe(false);
    expect(wrapper.find('a[href="/sign-up"]').exists()).toBe(false);
    setLocale('zh-CN');
    await settle();
    expect(wrapper.find('[data-test=sso-sign-in]').text()).toBe('使用 Keycloak 登录');
  });

  it('offers both when both are on', async () => {
    fakeApi({ 'GET /auth/methods': () => ({ ...ssoOnly, password: true }) });
    const { wrapper } = await mountPage(SignInView, { path: '/sign-in' });
    await settle();
    expect(wrapper.find('[data-test=sso-sign-in]').exists()).toBe(true);
    expect(wrapper.find('form').exists()).toBe(true);
  });

  it('explains why single sign-on failed, in both languages, and any unknown code generically', async () => {
    fakeApi({ 'GET /auth/methods': () => ssoOnly });
    const { wrapper } = await mountPage(SignInView, { path: '/sign-in?sso_error=sso_email_unverified' });
    await settle();
    expect(wrapper.find('[data-test=sso-error]').text()).toMatch(/has not verified your email/);
    setLocale('zh-CN');
    await settle();
    expect(wrapper.find('[data-test=sso-error]').text()).toBe(
      '身份提供方尚未验证你的邮箱地址，请先在那里完成验证后再试。',
    );
    const other = await mountPage(SignInView, { path: '/sign-in?sso_error=something_new' });
    await settle();
    expect(other.wrapper.find('[data-test=sso-error]').text()).toBe('Single sign-on did not finish. Try again.');
  });

  it('keeps the password form when the methods cannot be read', async () => {
    fakeApi({});
    const { wrapper } = await mountPage(SignInView, { path: '/sign-in' });
    await settle();
    expect(wrapper.find('form').exists()).toBe(true);
    expect(wrapper.find('[data-test=sso-sign-in]').exists()).toBe(false);
  });

  it('says where accounts come from on the sign-up page when local passwords are off', async () => {
    fakeApi({ 'GET /auth/methods': () => ssoOnly });
    const { wrapper } = await mountPage(SignUpView, { path: '/sign-up' });
    await settle();
    expect(wrapper.find('form').exists()).toBe(false);
    expect(wrapper.find('[data-test=passwords-off]').text()).toContain('first sign-in with Keycloak');
  });
});

describe('the account page', () => {
  it('has no password change when local passwords are off', async () => {
    fakeApi({ 'GET /auth/methods': () => ssoOnly });
    const { wrapper } = await mountPage(AccountView, { path: '/account', user: { role: 'user' } });
    await settle();
    expect(wrapper.find('[data-test=password-card]').exists()).toBe(false);
  });

  it('keeps it when they are on', async () => {
    fakeApi({ 'GET /auth/methods': () => ({ ...ssoOnly, password: true }) });
    const { wrapper } = await mountPage(AccountView, { path: '/account', user: { role: 'user' } });
    await settle();
    expect(wrapper.find('[data-test=password-form]').exists()).toBe(true);
  });
});
