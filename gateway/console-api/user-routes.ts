/**
 * @module gateway/console-api/user-routes
 * Administrators list accounts (with their budget and spend), change roles, set an account's budget
 * (all of its keys together), and disable or enable accounts.
 */
import { Router } from 'express';
import { type AdminUserView, updateUserRequestSchema } from '../../contracts/console-api.ts';
import { userSpendOwner } from '../../projector/read-models/spend/spend.ts';
import type { UserDocument } from '../../projector/read-models/users/evolve.ts';
import type { LookupReadModel } from '../../stores/ports.ts';
import type { CommandContext } from '../commands/command-context.ts';
import { updateUserByAdmin } from '../commands/users.ts';
import { parseOrThrow } from './api-error.ts';
import { userView } from './auth-routes.ts';
import { budgetView } from './budget-view.ts';
import { adminUser } from './guards.ts';

export function adminUserView(user: UserDocument, lookups?: LookupReadModel, now = Date.now()): AdminUserView {
  return {
    ...userView(user),
    disabled: user.disabled ?? false,
    created_at: user.createdAt,
    payload_capture_days: user.payloadCaptureDays ?? 0,
    ...(lookups && budgetView(user.budgetNanoUsd, user.budgetPeriod, lookups.spend(userSpendOwner(user.userId)), now)),
  };
}

export function userRoutes(context: CommandContext): Router {
  const router = Router();

  router.get('/users', (request, response) => {
    adminUser(request);
    const users = context.stores.lookups.users().sort((left, right) => left.createdAt.localeCompare(right.createdAt));
    response.json({ items: users.map((user) => adminUserView(user, context.stores.lookups)) });
  });

  router.patch('/users/:id', async (request, response) => {
    const admin = adminUser(request);
    const input = parseOrThrow(updateUserRequestSchema, request.body);
    const user = await updateUserByAdmin(context, admin, request.params.id!, input);
    response.json(adminUserView(user, context.stores.lookups));
  });

  return router;
}
