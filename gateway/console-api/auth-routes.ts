/**
 * @module gateway/console-api/auth-routes
 * Register, sign in, sign out, and who am I.
 */
import { Router } from 'express';
import { loginRequestSchema, registerRequestSchema, type UserView } from '../../contracts/console-api.ts';
import type { UserDocument } from '../../projector/read-models/users/evolve.ts';
import { registerUser } from '../commands/accounts.ts';
import type { CommandContext } from '../commands/command-context.ts';
import { decoyPasswordHash, verifyPassword } from '../security/passwords.ts';
import { ApiError, parseOrThrow } from './api-error.ts';
import { currentUser } from './guards.ts';
import { clearSessionCookie, createSessionValue, setSessionCookie } from './sessions.ts';

export function userView(user: UserDocument): UserView {
  return { id: user.userId, email: user.email, name: user.name, role: user.role };
}

export function authRoutes(context: CommandContext, { secureCookies }: { secureCookies: boolean }): Router {
  const router = Router();
  const signIn = (response: Parameters<typeof setSessionCookie>[0], user: UserDocument) =>
    setSessionCookie(response, createSessionValue(user.userId, context.keys.sessions, Date.now()), secureCookies);

  router.post('/auth/register', async (request, response) => {
    const input = parseOrThrow(registerRequestSchema, request.body);
    const user = await registerUser(context, input);
    signIn(response, user);
    response.status(201).json(userView(user));
  });

  router.post('/auth/login', async (request, response) => {
    const input = parseOrThrow(loginRequestSchema, request.body);
    const user = context.stores.lookups.userByEmail(input.email);
    // Verify against a decoy when the email is unknown, so the answer time does not reveal accounts.
    const valid = await verifyPassword(input.password, user?.passwordHash ?? (await decoyPasswordHash));
    if (!user || !valid) throw new ApiError(401, 'invalid_credentials', 'Email or password is incorrect.');
    signIn(response, user);
    response.json(userView(user));
  });

  router.post('/auth/logout', (_request, response) => {
    clearSessionCookie(response, secureCookies);
    response.status(204).end();
  });

  router.get('/me', (request, response) => {
    response.json(userView(currentUser(request)));
  });

  return router;
}
