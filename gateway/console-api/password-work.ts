/**
 * @module gateway/console-api/password-work
 * Every password hash or check a console request causes (sign-in, registration, password change) runs
 * through one fair queue per process. scrypt takes tens of milliseconds of a libuv pool thread (four by
 * default, shared with DNS lookups and file reads): two at a time leaves the rest of the pool free,
 * and taking clients in turn bounds a bystander's wait by about one check per other waiting client.
 */
import { availableParallelism } from 'node:os';
import type { ErrorRequestHandler } from 'express';
import { FairWorkQueue, WorkQueueFullError } from '../security/fair-work-queue.ts';
import { ApiError } from './api-error.ts';

export const passwordWork = new FairWorkQueue({
  concurrency: Math.max(1, Math.floor(availableParallelism() / 2)),
  perClientWaiting: 4,
  totalWaiting: 64,
  maxWaitMs: 5_000,
});

/** A full queue is the client's doing (429) or everyone's (503); either way, come back in a second. */
export const passwordWorkErrors: ErrorRequestHandler = (error, _request, response, next) => {
  if (!(error instanceof WorkQueueFullError)) return next(error);
  response.setHeader('retry-after', '1');
  next(
    error.scope === 'client'
      ? new ApiError(429, 'too_many_attempts', 'Too many password checks from your address at once; try again in 1 s.')
      : new ApiError(503, 'busy', 'The gateway is busy checking passwords; try again in 1 s.'),
  );
};
