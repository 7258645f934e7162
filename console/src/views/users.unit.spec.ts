// @vitest-environment happy-dom
/**
 * The users page: search and pages over the accounts, a role change and a disable only after a
 * confirmation, a password reset and a new account each showing the temporary password once.
 */
import { afterEach, expect, it, vi } from 'vitest';
import { fakeApi, reply } from '../testing/fake-api.ts';
import { mountPage, settle } from '../testing/mount.ts';
import UsersView from './UsersView.vue';

afterEach(() => {
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
});

const account = (index: number) => ({
  id: `u${index}`,
  email: `person${String(index).padStart(2, '0')}@example.com`,
  name: index === 7 ? 'Grace Hopper' : `person ${index}`,
  role: 'user' as const,
  disabled: false,
  created_at: '2025-03-01T10:00:00.000Z',
});

it('searches and pages the accounts, and confirms a role change and a disable before sending them', async () => {
  const { calls } = fakeApi({
    'GET /users': () => ({ items: Array.from({ length: 45 }, (_, index) => account(index + 2)) }),
    'PATCH /users/u7': (call) => ({ ...account(7), ...(call.body as object) }),
  });
  const { wrapper } = await mountPage(UsersView, { path: '/admin/users', user: { role: 'admin' } });
  await settle();
  expect(wrapper.findAll('tr[data-user]')).toHaveLength(20);
  expect(wrapper.find('[data-test=users-page]').text()).toBe('Page 1 of 3');
  await wrapper.find('[data-test=users-next]').trigger('click');
  expect(wrapper.find('tr[data-user]').attributes('data-user')).toBe('person22@example.com');

  await wrapper.find('[data-test=users-search]').setValue('grace');
  expect(wrapper.findAll('tr[data-user]').map((row) => row.attributes('data-user'))).toEqual(['person07@example.com']);

  const row = () => wrapper.find('tr[data-user="person07@example.com"]');
  await row().find('[data-test=role]').setValue('admin');
  await settle();
  expect(calls.filter((call) => call.method === 'PATCH')).toEqual([]);
  expect((row().find('[data-test=role]').element as HTMLSelectElement).value).toBe('user');
  expect(document.body.textContent).toContain('person07@example.com becomes Admin');
  (document.querySelector('[data-test=confirm]') as HTMLButtonElement).click();
  await settle();
  expect(calls.filter((call) => call.method === 'PATCH').map((call) => call.body)).toEqual([{ role: 'admin' }]);

  await row().find('[data-test=toggle-user]').trigger('click');
  await settle();
  expect(calls.filter((call) => call.method === 'PATCH')).toHaveLength(1);
  (document.querySelector('[data-test=confirm]') as HTMLButtonElement).click();
  await settle();
  expect(calls.filter((call) => call.method === 'PATCH').at(-1)!.body).toEqual({ disabled: true });
});

it('shows the temporary password of a new account and of a reset, once', async () => {
  fakeApi({
    'GET /users': () => ({ items: [account(2)] }),
    'POST /users': (call) =>
      reply(201, {
        user: { ...account(3), email: (call.body as { email: string }).email },
        temporary_password: 'Temp-New-123456',
      }),
    'POST /users/u2/password-reset': () => ({ user: account(2), temporary_password: 'Temp-Reset-1234' }),
  });
  const { wrapper } = await mountPage(UsersView, { path: '/admin/users', user: { role: 'admin' } });
  await settle();
  await wrapper.find('[data-test=create-user]').trigger('click');
  await settle();
  const email = document.querySelector('[data-test=new-user-email]') as HTMLInputElement;
  email.value = 'new@example.com';
  email.dispatchEvent(new Event('input'));
  (document.querySelector('[data-test=create-user-form]') as HTMLFormElement).dispatchEvent(new Event('submit'));
  await settle();
  expect((document.querySelector('[data-test=temporary-password]') as HTMLInputElement).value).toBe('Temp-New-123456');
  expect(wrapper.findAll('tr[data-user]').map((row) => row.attributes('data-user'))).toContain('new@example.com');
  (document.querySelector('[data-test=password-done]') as HTMLButtonElement).click();
  await settle();
  expect(document.querySelector('[data-test=temporary-password]')).toBeNull();

  await wrapper.find('tr[data-user="person02@example.com"] [data-test=reset-password]').trigger('click');
  await settle();
  (document.querySelector('[data-test=confirm]') as HTMLButtonElement).click();
  await settle();
  expect((document.querySelector('[data-test=temporary-password]') as HTMLInputElement).value).toBe('Temp-Reset-1234');
});
