/**
 * @module gateway/console-api/api-error
 * The one error shape of `/api`: `{"error": {"code", "message", "field"?}}` with a fitting status.
 * `code` is stable for scripts; `message` says what was wrong and what to do.
 */
import type { ErrorRequestHandler } from 'express';
import type { z } from 'zod';
import type { ConsoleError } from '../../contracts/console-api.ts';
import { describeIssues, firstIssueField } from '../../contracts/validation-message.ts';
import { log } from '../../platform/log.ts';
import { GuardBusyError } from '../../stores/ports.ts';
import { CommandError, type CommandErrorKind } from '../commands/errors.ts';
import { type BrokenRule, brokenRule } from './validation-rule.ts';

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly field: string | undefined;
  readonly broken: BrokenRule | null;

  constructor(status: number, code: string, message: string, field?: string, broken: BrokenRule | null = null) {
    super(message);
    this.status = status;
    this.code = code;
    this.field = field;
    this.broken = broken;
  }

  body(): ConsoleError {
    return {
      error: { code: this.code, message: this.message, ...(this.field && { field: this.field }), ...this.broken },
    };
  }
}

const statusOfKind: Record<CommandErrorKind, number> = {
  invalid: 400,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
};

/** A command's refusal in the `/api` shape. */
export function fromCommandError(error: CommandError): ApiError {
  return new ApiError(statusOfKind[error.kind], error.code, error.message, error.field);
}

export function parseOrThrow<Output>(schema: z.ZodType<Output>, input: unknown): Output {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new ApiError(
    400,
    'invalid_request',
    describeIssues(result.error.issues),
    firstIssueField(result.error.issues) ?? undefined,
    brokenRule(result.error.issues, input),
  );
}

/**
 * Errors of a store that does not answer (the cluster's Redis down): the change is refused, not broken.
 * Matched by the node-redis class names rather than by `instanceof`, so the embedded mode does not load
 * the Redis client (and its memory) just to recognise its errors.
 */
const unavailableStoreErrors = new Set([
  'ClientClosedError',
  'ClientOfflineError',
  'ConnectionTimeoutError',
  'SocketClosedUnexpectedlyError',
  'SocketTimeoutError',
  'TimeoutError',
]);

function storeUnavailable(error: unknown): boolean {
  if (error instanceof Error && unavailableStoreErrors.has(error.constructor.name)) return true;
  const code = (error as { code?: string } | null)?.code;
  return code === 'ECONNREFUSED' || code === 'ECONNRESET';
}

export const apiErrorHandler: ErrorRequestHandler = (error, _request, response, _next) => {
  if (error instanceof ApiError) {
    response.status(error.status).json(error.body());
    return;
  }
  if (error instanceof CommandError) {
    const refusal = fromCommandError(error);
    response.status(refusal.status).json(refusal.body());
    return;
  }
  if (error instanceof GuardBusyError) {
    response.setHeader('retry-after', '1');
    response
      .status(503)
      .json(
        new ApiError(
          503,
          'change_in_progress',
          'Another administrator change is being saved right now; try again in a moment.',
        ).body(),
      );
    return;
  }
  const status =
    (error as { status?: number; statusCode?: number }).status ?? (error as { statusCode?: number }).statusCode;
  const type = (error as { type?: string }).type;
  if (type === 'entity.parse.failed') {
    response.status(400).json(new ApiError(400, 'invalid_json', 'Request body is not valid JSON.').body());
    return;
  }
  if (type === 'entity.too.large') {
    response.status(413).json(new ApiError(413, 'request_too_large', 'Request body is too large.').body());
    return;
  }
  const storageCode = (error as { code?: string }).code;
  if (storageCode === 'SQLITE_FULL' || storageCode === 'ENOSPC') {
    // The embedded store's disk is full: say so, instead of a generic failure. A change whose event was
    // appended before the projection hit the full disk appears once space is back.
    log.error('storage full', { error: String((error as Error)?.message) });
    response
      .status(507)
      .json(
        new ApiError(
          507,
          'storage_full',
          'The gateway cannot save this change: its data disk is full. Ask the operator to free space, then check before retrying.',
        ).body(),
      );
    return;
  }
  if (storeUnavailable(error)) {
    log.error('store unavailable', { error: String(error?.stack ?? error) });
    response.setHeader('retry-after', '5');
    response
      .status(503)
      .json(
        new ApiError(
          503,
          'store_unavailable',
          'A data store of the gateway is not answering, so this change cannot be saved now; try again shortly.',
        ).body(),
      );
    return;
  }
  if (status && status >= 400 && status < 500) {
    response.status(status).json(new ApiError(status, 'invalid_request', (error as Error).message).body());
    return;
  }
  log.error('console api failed', { error: String((error as Error)?.stack ?? error) });
  response.status(500).json(new ApiError(500, 'internal_error', 'Something went wrong on our side; try again.').body());
};
