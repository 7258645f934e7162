/**
 * @module gateway/commands/sso-accounts
 * The account of someone an OpenID provider has signed in: the account with their (verified) email,
 * or a new one made by the same registration as every other account, so one account per email holds
 * for single sign-on too, also when two first sign-ins of one person race. A new account gets a random
 * password no one knows: it signs in through the provider (or after an administrator's reset).
 *
 * When the provider's groups decide roles, every sign-in brings the role in line with them, except
 * that the last enabled administrator is not demoted (the gateway always keeps one).
 */
import { randomBytes } from 'node:crypto';
import type { GatewayEvent } from '../../contracts/events/index.ts';
import type { UserDocument } from '../../projector/read-models/users/evolve.ts';
import { newEvent } from '../events/new-event.ts';
import { accountOnceShown, registerUser } from './accounts.ts';
import { type CommandContext, commit } from './command-context.ts';
import { CommandError } from './errors.ts';

export interface SsoIdentity {
  /** verified by the provider */
  email: string;
  name: string | undefined;
  /** whether the provider's groups make this user an administrator; undefined: roles are the console's */
  admin: boolean | undefined;
}

const isEnabledAdmin = (user: UserDocument) => user.role === 'admin' && !user.disabled;

/** The role change a sign-in brings, over the account and how many enabled admins there are. */
export function decideProviderRole(
  user: UserDocument,
  admin: boolean,
  state: { enabledAdmins: number },
  now: Date,
): GatewayEvent[] {
  const role = admin ? 'admin' : 'user';
  if (user.role === role) return [];
  if (isEnabledAdmin(user) && state.enabledAdmins <= 1) return [];
  return [newEvent('user.updated', { userId: user.userId, role }, now)];
}

async function followProviderRole(context: CommandContext, user: UserDocument, admin: boolean): Promise<UserDocument> {
  const { lookups, guards } = context.stores;
  if (user.role === (admin ? 'admin' : 'user')) return user;
  // The same guard as an administrator's role changes: a demotion racing another cannot leave none.
  return guards.exclusively('admins', async () => {
    const admins = lookups.users().filter((account) => account.role === 'admin');
    await lookups.refreshUsers([...admins.map((account) => account.userId), user.userId]);
    const current = lookups.userById(user.userId)!;
    const enabledAdmins = lookups.users().filter(isEnabledAdmin).length;
    const events = decideProviderRole(current, admin, { enabledAdmins }, context.now());
    if (events.length > 0) await commit(context, ...events);
    return lookups.userById(user.userId)!;
  });
}

async function createAccount(context: CommandContext, identity: SsoIdentity, email: string): Promise<UserDocument> {
  try {
    return await registerUser(context, {
      email,
      password: randomBytes(32).toString('base64url'),
      name: identity.name?.trim().slice(0, 64) || undefined,
      role: identity.admin ? 'admin' : 'user',
    });
  } catch (error) {
    if (!(error instanceof CommandError && error.code === 'email_taken')) throw error;
    // Another first sign-in (or a registration) of this email won: this sign-in is into its account.
    const winner = await accountOnceShown(context, email);
    if (!winner) throw error;
    return winner;
  }
}

export async function accountForSso(context: CommandContext, identity: SsoIdentity): Promise<UserDocument> {
  const { lookups } = context.stores;
  const email = identity.email.toLowerCase();
  await lookups.ensureEmail(email);
  const user = lookups.userByEmail(email) ?? (await createAccount(context, identity, email));
  return identity.admin === undefined ? user : followProviderRole(context, user, identity.admin);
}
