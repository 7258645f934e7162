/**
 * Sign-in limits that a stranger cannot turn against the owner: wrong passwords are limited per
 * (email, client address) pair first, so a flood from one address does not lock the account out
 * elsewhere; a guesser spread over many addresses meets the per-email limit, which does not apply to an
 * address the owner signed in from. Each client here has its own loopback source address
 * (127.0.0.x), as distinct machines would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AddressedClient } from '../support/addressed-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';

const OWNER = { email: 'owner@example.com', password: 'the owner password' };

async function wrongPasswords(client: AddressedClient, email: string, count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let index = 0; index < count; index += 1) {
    statuses.push((await client.call('POST', '/api/auth/login', { email, password: `guess ${index}` })).status);
  }
  return statuses;
}

describe('a stranger flooding wrong passwords from one address', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness({
      environment: {
        AUTH_RATE_LIMIT_ATTEMPTS: '3',
        AUTH_RATE_LIMIT_IP_ATTEMPTS: '100',
        AUTH_RATE_LIMIT_WINDOW_MS: '60000',
      },
    });
    const owner = new AddressedClient(harness.baseUrl, '127.0.0.2');
    expect((await owner.call('POST', '/api/auth/register', OWNER)).status).toBe(201);
  });
  afterAll(async () => harness?.stop());

  it("is limited on its own (email, address) pair, while the owner signs in from the owner's address and from a new one", async () => {
    const attacker = new AddressedClient(harness.baseUrl, '127.0.0.1');
    const statuses = await wrongPasswords(attacker, OWNER.email, 20);
    expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
    expect(statuses.slice(3)).toEqual(Array(17).fill(429));
    // The pair is limited whatever the password: the attacker learns nothing more from this address.
    const limited = await attacker.call('POST', '/api/auth/login', OWNER);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    const owner = new AddressedClient(harness.baseUrl, '127.0.0.2');
    expect((await owner.call('POST', '/api/auth/login', OWNER)).status).toBe(200);
    expect((await owner.call('GET', '/api/me')).body.email).toBe(OWNER.email);
    const ownerElsewhere = new AddressedClient(harness.baseUrl, '127.0.0.3');
    expect((await ownerElsewhere.call('POST', '/api/auth/login', OWNER)).status).toBe(200);
  });
});

describe('a guesser spread over many addresses', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness({
      environment: {
        AUTH_RATE_LIMIT_ATTEMPTS: '3',
        AUTH_RATE_LIMIT_IP_ATTEMPTS: '100',
        AUTH_RATE_LIMIT_EMAIL_ATTEMPTS: '6',
        AUTH_RATE_LIMIT_WINDOW_MS: '60000',
      },
    });
    const owner = new AddressedClient(harness.baseUrl, '127.0.0.2');
    expect((await owner.call('POST', '/api/auth/register', OWNER)).status).toBe(201);
    expect((await owner.call('POST', '/api/auth/login', OWNER)).status).toBe(200);
  });
  afterAll(async () => harness?.stop());

  it("meets the per-email limit, which a new address meets too, but not the owner's own address", async () => {
    const statuses: number[] = [];
    for (const host of [10, 11, 12, 13]) {
      statuses.push(...(await wrongPasswords(new AddressedClient(harness.baseUrl, `127.0.0.${host}`), OWNER.email, 3)));
    }
    // 6 attempts on the email from addresses that had not signed in to it: the owner's registration (its
    // address was not the account's yet), then 5 guesses; every later one is refused.
    expect(statuses.slice(0, 5)).toEqual(Array(5).fill(401));
    expect(statuses.slice(5)).toEqual(Array(7).fill(429));
    const stranger = await new AddressedClient(harness.baseUrl, '127.0.0.20').call('POST', '/api/auth/login', OWNER);
    expect(stranger.status).toBe(429);

    const owner = new AddressedClient(harness.baseUrl, '127.0.0.2');
    expect((await owner.call('POST', '/api/auth/login', OWNER)).status).toBe(200);
  });
});
