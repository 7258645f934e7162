/**
 * @module gateway/commands/users
 * Account changes after registration: a user changes their password; an administrator changes a
 * user's role or disables the account (its sessions end and its keys are refused while disabled).
 */
import type { UpdateUserRequest } from '../../contracts/console-api.ts';
import type { UserDocument } from '../../projector/read-models/users/evolve.ts';
import { ApiError } from '../console-api/api-error.ts';
import { newEvent } from '../events/new-event.ts';
import { hashPassword, verifyPassword } from '../security/passwords.ts';
import { type CommandContext, commit } from './command-context.ts';

export async function changePassword(
  context: CommandContext,
  user: UserDocument,
  input: { currentPassword: string; newPassword: string },
): Promise<UserDocument> {
  if (!(await verifyPassword(input.currentPassword, user.passwordHash))) {
    // Not a 401: the session is fine, only the confirmation is wrong.
    throw new ApiError(400, 'wrong_password', 'The current password is incorrect.', 'current_password');
  }
  if (input.currentPassword === input.newPassword) {
    throw new ApiError(400, 'invalid_request', 'Choose a new password different from the current one.', 'new_password');
  }
  const passwordHash = await hashPassword(input.newPassword);
  await commit(context, newEvent('user.updated', { userId: user.userId, passwordHash }, context.now()));
  return context.stores.lookups.userById(user.userId)!;
}

export async function updateUserByAdmin(
  context: CommandContext,
  admin: UserDocument,
  userId: string,
  input: UpdateUserRequest,
): Promise<UserDocument> {
  const user = context.stores.lookups.userById(userId);
  if (!user) throw new ApiError(404, 'user_not_found', 'No such user.');
  if (userId === admin.userId && (input.disabled === true || input.role === 'user')) {
    throw new ApiError(
      409,
      'cannot_change_self',
      'You cannot disable or demote your own account; ask another administrator.',
      input.disabled === true ? 'disabled' : 'role',
    );
  }
  const changes = {
    ...(input.role !== undefined && input.role !== user.role && { role: input.role }),
    ...(input.disabled !== undefined && input.disabled !== (user.disabled ?? false) && { disabled: input.disabled }),
  };
  if (Object.keys(changes).length > 0) {
    await commit(context, newEvent('user.updated', { userId, ...changes }, context.now()));
  }
  return context.stores.lookups.userById(userId)!;
}
