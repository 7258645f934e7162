/**
 * @module gateway/commands/admin-accounts
 * An administrator opens an account for someone, or resets a forgotten password. Either way the
 * gateway makes the password (random, 96 bits) and hands it back once for the administrator to pass
 * on; only its hash is recorded, and a reset ends the account's sessions like a password change does.
 */
import { randomBytes } from 'node:crypto';
import type { Role } from '../../contracts/events/index.ts';
import type { UserDocument } from '../../projector/read-models/users/evolve.ts';
import { newEvent } from '../events/new-event.ts';
import { hashPassword } from '../security/passwords.ts';
import { registerUser } from './accounts.ts';
import { type CommandContext, commit } from './command-context.ts';
import { CommandError } from './errors.ts';

export interface IssuedPassword {
  user: UserDocument;
  temporaryPassword: string;
}

/** 16 characters of base64url: easy to read out, far beyond guessing. */
const temporaryPassword = () => randomBytes(12).toString('base64url');

function requireAdmin(admin: UserDocument): void {
  if (admin.role !== 'admin' || admin.disabled) {
    throw new CommandError('forbidden', 'admin_required', 'Only an enabled administrator can manage accounts.');
  }
}

export async function createUserByAdmin(
  context: CommandContext,
  admin: UserDocument,
  input: { email: string; name?: string | undefined; role?: Role | undefined },
): Promise<IssuedPassword> {
  requireAdmin(admin);
  const password = temporaryPassword();
  const user = await registerUser(context, { ...input, password, role: input.role ?? 'user' });
  return { user, temporaryPassword: password };
}

export async function resetPasswordByAdmin(
  context: CommandContext,
  admin: UserDocument,
  userId: string,
): Promise<IssuedPassword> {
  requireAdmin(admin);
  if (!context.stores.lookups.userById(userId)) throw new CommandError('not_found', 'user_not_found', 'No such user.');
  const password = temporaryPassword();
  const passwordHash = await hashPassword(password);
  await commit(context, newEvent('user.updated', { userId, passwordHash }, context.now()));
  return { user: context.stores.lookups.userById(userId)!, temporaryPassword: password };
}
