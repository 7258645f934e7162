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
import { clientOf, limitPasswordChecks } from './auth-rate-limit.ts';
import { type AuthRouteOptions, startSession, userView } from './auth-routes.ts';
import { currentUser } from './guards.ts';
import { passwordWork, passwordWorkErrors } from './password-work.ts';

export function accountRoutes(
  context: CommandContext,
  { secureCookies, trustProxyHops, rateLimits }: AuthRouteOptions,
): Router {
  const router = Router();

  // The current password is checked before anything changes: a guess like a sign-in, limited like one.
  router.post('/auth/password', limitPasswordChecks(trustProxyHops, rateLimits), async (request, response) => {
    const user = currentUser(request);
    const input = parseOrThrow(changePasswordRequestSchema, request.body);
    const updated = await passwordWork.run(clientOf(request, trustProxyHops), () =>
      changePassword(context, user, { currentPassword: input.current_password, newPassword: input.new_password }),
    );
    startSession(response, updated, context.keys.sessions, secureCookies);
    response.json(userView(updated));
  });

  router.use(passwordWorkErrors);
  return router;
}
