/**
 * @module gateway/console-api/user-routes
 * Administrators list accounts, change roles, and disable or enable accounts.
 */
import { Router } from 'express';
import { type AdminUserView, updateUserRequestSchema } from '../../contracts/console-api.ts';
import type { UserDocument } from '../../projector/read-models/users/evolve.ts';
import type { CommandContext } from '../commands/command-context.ts';
import { updateUserByAdmin } from '../commands/users.ts';
import { parseOrThrow } from './api-error.ts';
import { userView } from './auth-routes.ts';
import { adminUser } from './guards.ts';

export function adminUserView(user: UserDocument): AdminUserView {
  return { ...userView(user), disabled: user.disabled ?? false, created_at: user.createdAt };
}

export function userRoutes(context: CommandContext): Router {
  const router = Router();

  router.get('/users', (request, response) => {
    adminUser(request);
    const users = context.stores.lookups.users().sort((left, right) => left.createdAt.localeCompare(right.createdAt));
    response.json({ items: users.map(adminUserView) });
  });

  router.patch('/users/:id', async (request, response) => {
    const admin = adminUser(request);
    const input = parseOrThrow(updateUserRequestSchema, request.body);
    response.json(adminUserView(await updateUserByAdmin(context, admin, request.params.id!, input)));
  });

  return router;
}
