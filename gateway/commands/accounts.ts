/**
 * @module gateway/commands/accounts
 * Registering users and seeding the first admin from ADMIN_EMAIL / ADMIN_PASSWORD. One account per
 * email holds on both stores and across nodes: the email is claimed (atomically, by the store) before
 * the account's event is appended, and given back if the append fails.
 */
import { v7 as uuidv7 } from 'uuid';
import type { GatewayEvent, Role } from '../../contracts/events/index.ts';
import type { UserDocument } from '../../projector/read-models/users/evolve.ts';
import { newEvent } from '../events/new-event.ts';
import { hashPassword } from '../security/passwords.ts';
import type { CommandContext } from './command-context.ts';
import { CommandError, emailTaken } from './errors.ts';

export interface Registration {
  userId: string;
  email: string;
  name: string;
  passwordHash: string;
  role: Role;
}

/** The account's event, over whether its email is free (claimed by this registration). */
export function decideRegistration(
  registration: Registration,
  state: { emailFree: boolean },
  now: Date,
): GatewayEvent[] {
  if (!state.emailFree) throw emailTaken();
  return [newEvent('user.registered', registration, now)];
}

export async function registerUser(
  context: CommandContext,
  input: { email: string; password: string; name?: string | undefined; role?: Role },
): Promise<UserDocument> {
  const { lookups, guards, events, sync } = context.stores;
  const email = input.email.toLowerCase();
  // Refused early when the account is known, before paying for the password hash.
  await lookups.ensureEmail(email);
  if (lookups.userByEmail(email)) throw emailTaken();
  const registration: Registration = {
    userId: uuidv7(),
    email,
    name: input.name ?? email.split('@')[0]!,
    passwordHash: await hashPassword(input.password),
    role: input.role ?? 'user',
  };
  await lookups.ensureEmail(email);
  // The lookups see accounts registered before claims existed; the claim makes concurrent ones lose.
  const emailFree = !lookups.userByEmail(email) && (await guards.claimEmail(email, registration.userId));
  const decided = decideRegistration(registration, { emailFree }, context.now());
  try {
    await events.append(decided);
  } catch (error) {
    await guards.releaseEmail(email, registration.userId).catch(() => {});
    throw error;
  }
  await sync.caughtUp(decided);
  return lookups.userById(registration.userId)!;
}

/**
 * The account of an email another registration has claimed: the winner claimed the email before
 * appending its account, so it is given a few seconds to show. Undefined if it never does.
 */
export async function accountOnceShown(context: CommandContext, email: string): Promise<UserDocument | undefined> {
  const { lookups } = context.stores;
  for (let attempt = 0; attempt < 50 && !lookups.userByEmail(email); attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    await lookups.ensureEmail(email);
  }
  return lookups.userByEmail(email);
}

/**
 * Creates the admin named by the environment when no admin exists yet. Two nodes starting at once
 * both try; the one that loses the email finds the other's admin and is content.
 */
export async function ensureAdmin(
  context: CommandContext,
  email: string | undefined,
  password: string | undefined,
): Promise<string | null> {
  if (!email || !password) return null;
  const { lookups } = context.stores;
  if (lookups.users().some((user) => user.role === 'admin')) return null;
  if (password.length < 8) throw new Error('ADMIN_PASSWORD must be at least 8 characters long.');
  const refuseNonAdmin = () => {
    throw new Error(`ADMIN_EMAIL ${email} belongs to an existing non-admin account; choose another email.`);
  };
  if (lookups.userByEmail(email)) refuseNonAdmin();
  try {
    const user = await registerUser(context, { email, password, name: 'admin', role: 'admin' });
    return user.email;
  } catch (error) {
    if (!(error instanceof CommandError && error.code === 'email_taken')) throw error;
    if ((await accountOnceShown(context, email))?.role === 'admin') return null;
    return refuseNonAdmin();
  }
}
