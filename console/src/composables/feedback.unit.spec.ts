// @vitest-environment happy-dom
/**
 * Feedback a user sees at once: the tab title follows a language switch without a navigation, and a
 * notice shown three times while it is up is one notice (it read "Saved." three times).
 */
import { afterEach, expect, it, vi } from 'vitest';
import { setLocale } from '../locales/index.ts';
import { fakeApi } from '../testing/fake-api.ts';
import { mountPage, settle } from '../testing/mount.ts';
import AccountView from '../views/AccountView.vue';
import { useToast } from './use-toast.ts';

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
  setLocale('en');
});

it('retitles the tab when the language changes, without a navigation', async () => {
  fakeApi({});
  await mountPage(AccountView, { path: '/account', user: { role: 'user' } });
  await settle();
  expect(document.title).toMatch(/^Account · /);
  setLocale('zh-CN');
  await settle();
  expect(document.title).toMatch(/^账户 · /);
});

it('shows a repeated notice once, for as long as the last showing asks', () => {
  vi.useFakeTimers();
  const { toasts, show } = useToast();
  show('Saved.');
  vi.advanceTimersByTime(3000);
  show('Saved.');
  show('Saved.');
  show('Saved.', 'error');
  expect(toasts.value.map((toast) => [toast.message, toast.kind])).toEqual([
    ['Saved.', 'info'],
    ['Saved.', 'error'],
  ]);
  vi.advanceTimersByTime(3000);
  expect(toasts.value).toHaveLength(2);
  vi.advanceTimersByTime(1500);
  expect(toasts.value).toEqual([]);
});

it('refuses a new password equal to the current one in the page’s language, without asking the server', async () => {
  const { calls } = fakeApi({});
  const { wrapper } = await mountPage(AccountView, { path: '/account', user: { role: 'user' } });
  setLocale('zh-CN');
  const form = wrapper.find('[data-test=password-form]');
  const inputs = form.findAll('input[type=password]');
  for (const input of inputs) await input.setValue('the same password');
  await form.trigger('submit');
  await settle();
  expect(form.find('.field-error').text()).toBe('新密码不能与当前密码相同。');
  expect(calls.filter((call) => call.method !== 'GET')).toEqual([]);
});
