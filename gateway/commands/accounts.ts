/**
 * @module gateway/commands/accounts
 * Registering users and seeding the first admin from ADMIN_EMAIL / ADMIN_PASSWORD.
 */
import { v7 as uuidv7 } from 'uuid';
import type { Role } from '../../contracts/events/index.ts';
import type { UserDocument } from '../../projector/read-models/users/evolve.ts';
import { ApiError } from '../console-api/api-error.ts';
import { newEvent } from '../events/new-event.ts';
import { hashPassword } from '../security/passwords.ts';
import { type CommandContext, commit } from './command-context.ts';

export async function registerUser(
  context: CommandContext,
  input: { email: string; password: string; name?: string | undefined; role?: Role },
): Promise<UserDocument> {
  const email = input.email.toLowerCase();
  await context.stores.lookups.ensureEmail(email);
  if (context.stores.lookups.userByEmail(email)) {
    throw new ApiError(409, 'email_taken', 'An account with this email already exists. Sign in instead.', 'email');
  }
  const passwordHash = await hashPassword(input.password);
  // Checked again after the (slow, asynchronous) hash: another registration may have landed meanwhile.
  if (context.stores.lookups.userByEmail(email)) {
    throw new ApiError(409, 'email_taken', 'An account with this email already exists. Sign in instead.', 'email');
  }
  const userId = uuidv7();
  const name = input.name ?? email.split('@')[0]!;
  await commit(
    context,
    newEvent('user.registered', { userId, email, name, passwordHash, role: input.role ?? 'user' }, context.now()),
  );
  return context.stores.lookups.userById(userId)!;
}

/** Creates the admin named by the environment when no admin exists yet. */
export async function ensureAdmin(
  context: CommandContext,
  email: string | undefined,
  password: string | undefined,
): Promise<string | null> {
  if (!email || !password) return null;
  if (context.stores.lookups.users().some((user) => user.role === 'admin')) return null;
  if (password.length < 8) throw new Error('ADMIN_PASSWORD must be at least 8 characters long.');
  if (context.stores.lookups.userByEmail(email)) {
    throw new Error(`ADMIN_EMAIL ${email} belongs to an existing non-admin account; choose another email.`);
  }
  const user = await registerUser(context, { email, password, name: 'admin', role: 'admin' });
  return user.email;
}
