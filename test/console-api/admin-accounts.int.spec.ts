/**
 * Administrators open accounts and reset passwords: the gateway makes the password and answers it
 * once; it signs in, a reset ends the account's sessions and the old password stops working, and a
 * user who is not an administrator can do neither.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';

let harness: Harness;
let admin: ConsoleClient;

beforeAll(async () => {
  harness = await startHarness({
    environment: { ADMIN_EMAIL: 'root@example.com', ADMIN_PASSWORD: 'admin-password-1' },
  });
  admin = new ConsoleClient(harness.baseUrl);
  await admin.call('POST', '/api/auth/login', { email: 'root@example.com', password: 'admin-password-1' });
});
afterAll(async () => harness.stop());

it('opens an account with a password shown once, which signs in; a reset ends its sessions', async () => {
  const created = await admin.call('POST', '/api/users', { email: 'New.Person@example.com', name: 'New' });
  expect(created.status).toBe(201);
  expect(created.body.user).toMatchObject({
    email: 'new.person@example.com',
    name: 'New',
    role: 'user',
    disabled: false,
  });
  const first = created.body.temporary_password as string;
  expect(first).toMatch(/^[\w-]{16}$/);
  expect((await admin.call('GET', '/api/users')).body.items.map((user: any) => user.email)).toContain(
    'new.person@example.com',
  );

  const person = new ConsoleClient(harness.baseUrl);
  expect(
    (await person.call('POST', '/api/auth/login', { email: 'new.person@example.com', password: first })).status,
  ).toBe(200);
  expect((await person.call('GET', '/api/me')).status).toBe(200);

  const reset = await admin.call('POST', `/api/users/${created.body.user.id}/password-reset`);
  expect(reset.status).toBe(200);
  const second = reset.body.temporary_password as string;
  expect(second).not.toBe(first);
  expect((await person.call('GET', '/api/me')).status).toBe(401);
  const again = new ConsoleClient(harness.baseUrl);
  expect(
    (await again.call('POST', '/api/auth/login', { email: 'new.person@example.com', password: first })).status,
  ).toBe(401);
  expect(
    (await again.call('POST', '/api/auth/login', { email: 'new.person@example.com', password: second })).status,
  ).toBe(200);

  expect((await admin.call('POST', '/api/users', { email: 'new.person@example.com' })).body.error.code).toBe(
    'email_taken',
  );
  expect((await admin.call('POST', '/api/users/nobody/password-reset')).status).toBe(404);
});

it('lets no one but an administrator open accounts or reset passwords', async () => {
  const user = new ConsoleClient(harness.baseUrl);
  const me = await user.register('plain@example.com');
  expect((await user.call('POST', '/api/users', { email: 'other@example.com' })).status).toBe(403);
  expect((await user.call('POST', `/api/users/${me.id}/password-reset`)).status).toBe(403);
});
