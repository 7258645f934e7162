/**
 * @module test/support/invariant-scenarios
 * The console's invariants under concurrent commands, as scenarios any deployment can be put through:
 * one or two nodes (`urls`), embedded or cluster. Each returns what it observed; the suites assert.
 */
import { AddressedClient } from './addressed-client.ts';
import { ConsoleClient } from './console-client.ts';

const PASSWORD = 'correct horse battery';

/**
 * Eight registrations of one email at once, spread over the nodes, each from its own loopback address
 * (eight machines): from one address, the fair queue of password work would let only a few wait and
 * refuse the rest with 429 before they could race. Answers their statuses and the accounts made.
 */
export async function registerOneEmailConcurrently(
  urls: string[],
  admin: ConsoleClient,
  email: string,
): Promise<{ statuses: number[]; accounts: number }> {
  const answers = await Promise.all(
    Array.from({ length: 8 }, (_, index) =>
      new AddressedClient(urls[index % urls.length]!, `127.0.0.${20 + index}`).call('POST', '/api/auth/register', {
        email,
        password: PASSWORD,
      }),
    ),
  );
  const { body } = await admin.call('GET', '/api/users');
  const accounts = body.items.filter((user: { email: string }) => user.email === email).length;
  return { statuses: answers.map((answer) => answer.status).sort(), accounts };
}

export interface Admin {
  client: ConsoleClient;
  id: string;
}

/**
 * The only admin promotes a new user, then the two demote (or disable) each other at the same moment,
 * through different nodes when there are two. Answers the enabled admins of the whole deployment
 * afterwards, the two statuses, and an admin left to continue with (when one is).
 */
export async function demoteEachOther(
  urls: string[],
  admin: Admin,
  otherEmail: string,
  change: { role: 'user' } | { disabled: true },
): Promise<{ enabledAdmins: number; statuses: number[]; survivor: Admin | null }> {
  const other: Admin = { client: new ConsoleClient(urls[1 % urls.length]!), id: '' };
  other.id = (await other.client.register(otherEmail, PASSWORD)).id;
  const promoted = await admin.client.call('PATCH', `/api/users/${other.id}`, { role: 'admin' });
  if (promoted.status !== 200) throw new Error(`promotion failed: ${JSON.stringify(promoted.body)}`);
  const answers = await Promise.all([
    admin.client.call('PATCH', `/api/users/${other.id}`, change),
    other.client.call('PATCH', `/api/users/${admin.id}`, change),
  ]);
  const { body } = await (answers[0]!.status === 200 ? admin : other).client.call('GET', '/api/users');
  const users: Array<{ id: string; role: string; disabled: boolean }> = body.items ?? [];
  const enabled = users.filter((user) => user.role === 'admin' && !user.disabled);
  const survivor = [admin, other].find((candidate) => enabled.some((user) => user.id === candidate.id)) ?? null;
  return { enabledAdmins: enabled.length, statuses: answers.map((answer) => answer.status), survivor };
}
