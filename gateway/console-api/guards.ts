/**
 * @module gateway/console-api/guards
 * Middleware of the console API: the signed-in user (cross-site refusal is same-origin.ts).
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { sessionEnded } from '../../projector/read-models/users/ended-sessions.ts';
import type { UserDocument } from '../../projector/read-models/users/evolve.ts';
import type { LookupReadModel } from '../../stores/ports.ts';
import { ApiError } from './api-error.ts';
import { passwordFingerprint, readCookie, readSessionValue, SESSION_COOKIE, type SessionClaims } from './sessions.ts';

declare module 'express-serve-static-core' {
  interface Request {
    user?: UserDocument;
    /** the signed-in session's claims, set with `user` */
    session?: SessionClaims;
  }
}

export function sessionUser(lookups: LookupReadModel, sessionKey: Buffer): RequestHandler {
  return function attachUser(request: Request, _response: Response, next: NextFunction) {
    const claims = readSessionValue(readCookie(request, SESSION_COOKIE), sessionKey, Date.now());
    const user = claims ? lookups.userById(claims.userId) : undefined;
    // A session ends when its user signs out of it, with a password change (the fingerprint moves), and
    // while the account is disabled.
    if (
      claims &&
      user &&
      !user.disabled &&
      claims.fingerprint === passwordFingerprint(user.passwordHash, sessionKey) &&
      !sessionEnded(user, claims.sessionId, claims.expiresAt)
    ) {
      request.user = user;
      request.session = claims;
    }
    next();
  };
}

export function currentUser(request: Request): UserDocument {
  if (!request.user) throw new ApiError(401, 'not_signed_in', 'Sign in first: your session is missing or has expired.');
  return request.user;
}

export function adminUser(request: Request): UserDocument {
  const user = currentUser(request);
  if (user.role !== 'admin') throw new ApiError(403, 'admin_only', 'Only administrators may do this.');
  return user;
}
