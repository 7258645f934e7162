import { describe, expect, it } from 'vitest';
import type { UserDocument } from '../../projector/read-models/users/evolve.ts';
import { decideRegistration } from './accounts.ts';
import { CommandError } from './errors.ts';
import { decideProviderRole } from './sso-accounts.ts';
import { decideUserChange } from './users.ts';

const now = new Date('2026-01-01T00:00:00Z');

function user(userId: string, overrides: Partial<UserDocument> = {}): UserDocument {
  return {
    userId,
    email: `${userId}@example.com`,
    name: userId,
    passwordHash: 'hash',
    role: 'admin',
    createdAt: now.toISOString(),
    ...overrides,
  };
}

function refusal(decide: () => unknown): { kind: string; code: string } {
  try {
    decide();
  } catch (error) {
    if (error instanceof CommandError) return { kind: error.kind, code: error.code };
    throw error;
  }
  throw new Error('the command was not refused');
}

describe('decideRegistration', () => {
  const registration = { userId: 'u1', email: 'a@example.com', name: 'a', passwordHash: 'hash', role: 'user' as const };

  it('registers over a free email', () => {
    expect(decideRegistration(registration, { emailFree: true }, now).map((event) => event.type)).toEqual([
      'user.registered',
    ]);
  });

  it('refuses a taken email as a conflict', () => {
    expect(refusal(() => decideRegistration(registration, { emailFree: false }, now))).toEqual({
      kind: 'conflict',
      code: 'email_taken',
    });
  });
});

describe('decideUserChange', () => {
  const state = (enabledAdmins: number, actor = user('a'), target = user('b')) => ({
    actor,
    user: target,
    enabledAdmins,
  });

  it('demotes an admin while another enabled admin remains', () => {
    const [event] = decideUserChange({ actorId: 'a', userId: 'b', role: 'user' }, state(2), now);
    expect(event).toMatchObject({ type: 'user.updated', body: { userId: 'b', role: 'user' } });
  });

  it('refuses to demote or disable the last enabled admin', () => {
    expect(refusal(() => decideUserChange({ actorId: 'a', userId: 'b', role: 'user' }, state(1), now))).toEqual({
      kind: 'conflict',
      code: 'last_admin',
    });
    expect(refusal(() => decideUserChange({ actorId: 'a', userId: 'b', disabled: true }, state(1), now)).code).toBe(
      'last_admin',
    );
  });

  it('refuses an actor who is no longer an enabled admin', () => {
    const demoted = user('a', { role: 'user' });
    expect(
      refusal(() => decideUserChange({ actorId: 'a', userId: 'b', role: 'user' }, state(1, demoted), now)),
    ).toEqual({ kind: 'forbidden', code: 'admin_required' });
  });

  it('changes nothing when nothing differs, and lets a plain user be disabled whatever the admin count', () => {
    expect(decideUserChange({ actorId: 'a', userId: 'b', role: 'admin' }, state(1), now)).toEqual([]);
    const plain = user('c', { role: 'user' });
    expect(
      decideUserChange({ actorId: 'a', userId: 'c', disabled: true }, state(1, user('a'), plain), now),
    ).toHaveLength(1);
  });
});

describe('decideProviderRole', () => {
  it("promotes and demotes to what the provider's groups say", () => {
    const [promoted] = decideProviderRole(user('u', { role: 'user' }), true, { enabledAdmins: 1 }, now);
    expect(promoted).toMatchObject({ type: 'user.updated', body: { userId: 'u', role: 'admin' } });
    const [demoted] = decideProviderRole(user('a'), false, { enabledAdmins: 2 }, now);
    expect(demoted).toMatchObject({ type: 'user.updated', body: { userId: 'a', role: 'user' } });
  });

  it('keeps the last enabled admin, and changes nothing that already matches', () => {
    expect(decideProviderRole(user('a'), false, { enabledAdmins: 1 }, now)).toEqual([]);
    expect(decideProviderRole(user('a'), true, { enabledAdmins: 3 }, now)).toEqual([]);
    expect(decideProviderRole(user('u', { role: 'user' }), false, { enabledAdmins: 1 }, now)).toEqual([]);
  });
});
