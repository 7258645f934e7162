/**
 * @module gateway/console-api/auth-routes
 * Register, sign in, sign out, and who am I.
 */
import { Router } from 'express';
import { loginRequestSchema, registerRequestSchema, type UserView } from '../../contracts/console-api.ts';
import type { UserDocument } from '../../projector/read-models/users/evolve.ts';
import { registerUser } from '../commands/accounts.ts';
import type { CommandContext } from '../commands/command-context.ts';
import { endSession } from '../commands/sessions.ts';
import type { AuthRateLimitSettings } from '../config/auth-rate-limit-settings.ts';
import { decoyPasswordHash, verifyPassword } from '../security/passwords.ts';
import { ApiError, parseOrThrow } from './api-error.ts';
import { clientOf, SignInLimiter } from './auth-rate-limit.ts';
import { currentUser } from './guards.ts';
import { passwordWork, passwordWorkErrors } from './password-work.ts';
import { clearSessionCookie, createSessionValue, passwordFingerprint, setSessionCookie } from './sessions.ts';

export function userView(user: UserDocument): UserView {
  return { id: user.userId, email: user.email, name: user.name, role: user.role };
}

/** Sets a fresh session cookie for the user, bound to their current password. */
export function startSession(
  response: Parameters<typeof setSessionCookie>[0],
  user: UserDocument,
  sessionKey: Buffer,
  secureCookies: boolean,
): void {
  const fingerprint = passwordFingerprint(user.passwordHash, sessionKey);
  setSessionCookie(response, createSessionValue(user.userId, fingerprint, sessionKey, Date.now()), secureCookies);
}

export interface AuthRouteOptions {
  secureCookies: boolean;
  /** reverse-proxy hops to trust for the client address (`TRUST_PROXY`) */
  trustProxyHops: number;
  rateLimits: AuthRateLimitSettings;
}

export function authRoutes(
  context: CommandContext,
  { secureCookies, trustProxyHops, rateLimits }: AuthRouteOptions,
): Router {
  const router = Router();
  const signIn = (response: Parameters<typeof setSessionCookie>[0], user: UserDocument) =>
    startSession(response, user, context.keys.sessions, secureCookies);

  // One limiter for both routes: a guesser cannot double the attempts by alternating them.
  const limiter = new SignInLimiter(rateLimits);
  const limitAttempts = limiter.middleware(trustProxyHops);

  router.post('/auth/register', limitAttempts, async (request, response) => {
    const input = parseOrThrow(registerRequestSchema, request.body);
    const client = clientOf(request, trustProxyHops);
    const user = await passwordWork.run(client, () => registerUser(context, input));
    limiter.succeeded(client, user.email);
    signIn(response, user);
    response.status(201).json(userView(user));
  });

  router.post('/auth/login', limitAttempts, async (request, response) => {
    const input = parseOrThrow(loginRequestSchema, request.body);
    const client = clientOf(request, trustProxyHops);
    await context.stores.lookups.ensureEmail(input.email);
    const user = context.stores.lookups.userByEmail(input.email);
    // Verify against a decoy when the email is unknown, so the answer time does not reveal accounts.
    const stored = user?.passwordHash ?? (await decoyPasswordHash);
    const valid = await passwordWork.run(client, () => verifyPassword(input.password, stored));
    if (!user || !valid) throw new ApiError(401, 'invalid_credentials', 'Email or password is incorrect.');
    limiter.succeeded(client, user.email);
    if (user.disabled)
      throw new ApiError(403, 'account_disabled', 'This account is disabled. Ask an administrator to enable it.');
    signIn(response, user);
    response.json(userView(user));
  });

  router.post('/auth/logout', async (request, response) => {
    // Ended for every node before the answer: the cookie is refused everywhere once this returns.
    if (request.session) await endSession(context, request.session);
    clearSessionCookie(response, secureCookies);
    response.status(204).end();
  });

  router.get('/me', (request, response) => {
    response.json(userView(currentUser(request)));
  });

  router.use(passwordWorkErrors);
  return router;
}
