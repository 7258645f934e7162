/**
 * The console's invariants under concurrent commands on the embedded store: one account per email
 * (eight registrations of one email at once make one account), and at least one enabled admin (two
 * admins demoting or disabling each other at once leave one), so the next start with ADMIN_EMAIL works.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';
import { type Admin, demoteEachOther, registerOneEmailConcurrently } from '../support/invariant-scenarios.ts';

let harness: Harness;
let admin: Admin;

async function signInAdmin(): Promise<Admin> {
  const client = new ConsoleClient(harness.baseUrl);
  const { body } = await client.call('POST', '/api/auth/login', {
    email: 'root@example.com',
    password: 'admin-password-1',
  });
  return { client, id: body.id };
}

beforeAll(async () => {
  harness = await startHarness({
    environment: {
      ADMIN_EMAIL: 'root@example.com',
      ADMIN_PASSWORD: 'admin-password-1',
      AUTH_RATE_LIMIT_IP_ATTEMPTS: '1000',
    },
  });
  admin = await signInAdmin();
});
afterAll(async () => harness.stop());

describe('console invariants under concurrency (embedded)', () => {
  it('makes one account of eight registrations of one email at once', async () => {
    for (let round = 0; round < 3; round++) {
      const { statuses, accounts } = await registerOneEmailConcurrently(
        [harness.baseUrl],
        admin.client,
        `same-${round}@example.com`,
      );
      expect(statuses).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
      expect(accounts).toBe(1);
    }
  });

  it('keeps an enabled admin when two admins demote or disable each other at once', async () => {
    let current = admin;
    for (let round = 0; round < 6; round++) {
      const change = round % 2 === 0 ? ({ role: 'user' } as const) : ({ disabled: true } as const);
      const outcome = await demoteEachOther([harness.baseUrl], current, `rival-${round}@example.com`, change);
      expect(outcome.enabledAdmins).toBe(1);
      // The loser is refused as no longer an admin (403) or as the last one (409), by which ran first.
      expect(outcome.statuses.filter((status) => status === 200)).toHaveLength(1);
      expect(outcome.statuses.filter((status) => status === 403 || status === 409)).toHaveLength(1);
      current = outcome.survivor!;
    }
  });

  it('starts again with ADMIN_EMAIL after those races', async () => {
    await harness.restart();
    const again = await signInAdmin();
    expect((await again.client.call('GET', '/api/me')).status).toBe(200);
  });

  it('still refuses, with a clear message, a start whose ADMIN_EMAIL names a non-admin account', async () => {
    const dataDirectory = mkdtempSync(path.join(tmpdir(), 'gateway-admin-email-'));
    try {
      const plain = await startHarness({ dataDirectory });
      await new ConsoleClient(plain.baseUrl).register('plain@example.com');
      await plain.stop();
      await expect(
        startHarness({
          dataDirectory,
          environment: { ADMIN_EMAIL: 'plain@example.com', ADMIN_PASSWORD: 'admin-password-1' },
        }),
      ).rejects.toThrow(
        'ADMIN_EMAIL plain@example.com belongs to an existing non-admin account; choose another email.',
      );
    } finally {
      rmSync(dataDirectory, { recursive: true, force: true });
    }
  });
});
