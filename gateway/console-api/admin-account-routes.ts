/**
 * @module gateway/console-api/admin-account-routes
 * Administrators open accounts and reset passwords; the password the gateway made is in the answer,
 * once. (Listing, role and disable: user-routes.ts.)
 */
import { Router } from 'express';
import { createUserRequestSchema, type TemporaryPassword } from '../../contracts/console-api.ts';
import { createUserByAdmin, type IssuedPassword, resetPasswordByAdmin } from '../commands/admin-accounts.ts';
import type { CommandContext } from '../commands/command-context.ts';
import { parseOrThrow } from './api-error.ts';
import { adminUser } from './guards.ts';
import { adminUserView } from './user-routes.ts';

const answer = (issued: IssuedPassword): TemporaryPassword => ({
  user: adminUserView(issued.user),
  temporary_password: issued.temporaryPassword,
});

export function adminAccountRoutes(context: CommandContext): Router {
  const router = Router();

  router.post('/users', async (request, response) => {
    const admin = adminUser(request);
    const input = parseOrThrow(createUserRequestSchema, request.body);
    response.status(201).json(answer(await createUserByAdmin(context, admin, input)));
  });

  router.post('/users/:id/password-reset', async (request, response) => {
    const admin = adminUser(request);
    response.json(answer(await resetPasswordByAdmin(context, admin, request.params.id!)));
  });

  return router;
}
