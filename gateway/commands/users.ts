/**
 * @module gateway/commands/users
 * Account changes after registration: a user changes their password; an administrator changes a
 * user's role, sets its budget, or disables the account (its sessions end and its keys are refused
 * while disabled).
 * At least one enabled admin always remains: role and disable changes run one at a time for the
 * whole deployment (a store guard), each deciding over the accounts as they are inside the guard.
 */
import type { UpdateUserRequest } from '../../contracts/console-api.ts';
import type { GatewayEvent } from '../../contracts/events/index.ts';
import type { UserDocument } from '../../projector/read-models/users/evolve.ts';
import { newEvent } from '../events/new-event.ts';
import { hashPassword, verifyPassword } from '../security/passwords.ts';
import { budgetFields } from './budget-fields.ts';
import { type CommandContext, commit } from './command-context.ts';
import { CommandError } from './errors.ts';

export async function changePassword(
  context: CommandContext,
  user: UserDocument,
  input: { currentPassword: string; newPassword: string },
): Promise<UserDocument> {
  if (!(await verifyPassword(input.currentPassword, user.passwordHash))) {
    // Not a 401: the session is fine, only the confirmation is wrong.
    throw new CommandError('invalid', 'wrong_password', 'The current password is incorrect.', 'current_password');
  }
  if (input.currentPassword === input.newPassword) {
    throw new CommandError(
      'invalid',
      'invalid_request',
      'Choose a new password different from the current one.',
      'new_password',
    );
  }
  const passwordHash = await hashPassword(input.newPassword);
  await commit(context, newEvent('user.updated', { userId: user.userId, passwordHash }, context.now()));
  return context.stores.lookups.userById(user.userId)!;
}

export interface UserChange {
  actorId: string;
  userId: string;
  role?: UserDocument['role'] | undefined;
  disabled?: boolean | undefined;
  /** nano-dollars per period for all of the account's keys; null removes it */
  budgetNanoUsd?: number | null | undefined;
  budgetPeriod?: UserDocument['budgetPeriod'] | undefined;
  /** payload capture for every key of the account, in days; 0 turns it off */
  payloadCaptureDays?: number | undefined;
}

export interface UserChangeState {
  actor: UserDocument | undefined;
  user: UserDocument | undefined;
  /** how many accounts are admins and not disabled */
  enabledAdmins: number;
}

const isEnabledAdmin = (user: Pick<UserDocument, 'role' | 'disabled'>) => user.role === 'admin' && !user.disabled;

/** The events of an administrator's change to an account, or the refusal. */
export function decideUserChange(change: UserChange, state: UserChangeState, now: Date): GatewayEvent[] {
  const { actor, user } = state;
  if (!actor || !isEnabledAdmin(actor)) {
    throw new CommandError('forbidden', 'admin_required', 'Only an enabled administrator can change accounts.');
  }
  if (!user) throw new CommandError('not_found', 'user_not_found', 'No such user.');
  if (change.userId === change.actorId && (change.disabled === true || change.role === 'user')) {
    throw new CommandError(
      'conflict',
      'cannot_change_self',
      'You cannot disable or demote your own account; ask another administrator.',
      change.disabled === true ? 'disabled' : 'role',
    );
  }
  const changes = {
    ...(change.role !== undefined && change.role !== user.role && { role: change.role }),
    ...(change.disabled !== undefined && change.disabled !== (user.disabled ?? false) && { disabled: change.disabled }),
  };
  const budget = {
    ...(change.budgetNanoUsd !== undefined &&
      change.budgetNanoUsd !== (user.budgetNanoUsd ?? null) && { budgetNanoUsd: change.budgetNanoUsd }),
    ...(change.budgetPeriod !== undefined &&
      change.budgetPeriod !== (user.budgetPeriod ?? 'total') && { budgetPeriod: change.budgetPeriod }),
    ...(change.payloadCaptureDays !== undefined &&
      change.payloadCaptureDays !== (user.payloadCaptureDays ?? 0) && {
        payloadCaptureDays: change.payloadCaptureDays,
      }),
  };
  if (Object.keys(changes).length === 0 && Object.keys(budget).length === 0) return [];
  if (isEnabledAdmin(user) && !isEnabledAdmin({ ...user, ...changes }) && state.enabledAdmins <= 1) {
    throw new CommandError(
      'conflict',
      'last_admin',
      'This is the last enabled administrator; promote or enable another administrator first.',
      changes.role !== undefined ? 'role' : 'disabled',
    );
  }
  return [newEvent('user.updated', { userId: change.userId, ...changes, ...budget }, now)];
}

export async function updateUserByAdmin(
  context: CommandContext,
  admin: UserDocument,
  userId: string,
  input: UpdateUserRequest,
): Promise<UserDocument> {
  const { lookups, guards } = context.stores;
  return guards.exclusively('admins', async () => {
    // Inside the guard, as every node last wrote them: a concurrent demotion has been applied.
    const admins = lookups.users().filter((user) => user.role === 'admin');
    await lookups.refreshUsers([...admins.map((user) => user.userId), userId, admin.userId]);
    const state: UserChangeState = {
      actor: lookups.userById(admin.userId),
      user: lookups.userById(userId),
      enabledAdmins: lookups.users().filter(isEnabledAdmin).length,
    };
    const change: UserChange = {
      actorId: admin.userId,
      userId,
      role: input.role,
      disabled: input.disabled,
      ...budgetFields(input),
      payloadCaptureDays: input.payload_capture_days,
    };
    const events = decideUserChange(change, state, context.now());
    if (events.length > 0) await commit(context, ...events);
    return lookups.userById(userId)!;
  });
}
