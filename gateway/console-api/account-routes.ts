/**
 * @module gateway/console-api/account-routes
 * The signed-in user's own account: changing the password. The session cookie of this browser is
 * renewed; every session issued before the change stops working.
 */
import { Router } from 'express';
import { changePasswordRequestSchema } from '../../contracts/console-api.ts';
import type { CommandContext } from '../commands/command-context.ts';
import { changePassword } from '../commands/users.ts';
import { parseOrThrow } from './api-error.ts';
import { startSession, userView } from './auth-routes.ts';
import { currentUser } from './guards.ts';

export function accountRoutes(context: CommandContext, { secureCookies }: { secureCookies: boolean }): Router {
  const router = Router();

  router.post('/auth/password', async (request, response) => {
    const user = currentUser(request);
    const input = parseOrThrow(changePasswordRequestSchema, request.body);
    const updated = await changePassword(context, user, {
      currentPassword: input.current_password,
      newPassword: input.new_password,
    });
    startSession(response, updated, context.keys.sessions, secureCookies);
    response.json(userView(updated));
  });

  return router;
}
