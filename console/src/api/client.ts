/**
 * The one fetch client of the console: same-origin JSON with the session cookie, the `/api` error
 * shape turned into `ApiRequestError`, and an expired session (401 `not_signed_in`) reported to the
 * handler the app installs (it signs the user out and shows the sign-in page with a notice).
 */
import type { ConsoleError, ValidationRule } from '@contracts/console-api.ts';

/** What a refused input broke, as the server names it (translated by `useErrorMessage`). */
export interface BrokenRule {
  rule: ValidationRule;
  limit?: number | undefined;
}

export class ApiRequestError extends Error {
  readonly status: number;
  readonly code: string;
  readonly field: string | undefined;
  readonly broken: BrokenRule | undefined;

  constructor(status: number, code: string, message: string, field?: string, broken?: BrokenRule) {
    super(message);
    this.name = 'ApiRequestError';
    this.status = status;
    this.code = code;
    this.field = field;
    this.broken = broken;
  }
}

export type QueryValue = string | number | boolean | null | undefined;

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, QueryValue>;
  signal?: AbortSignal;
}

let onSessionExpired: (() => void) | null = null;

/** Installed once by the app: what to do when the server says the session is gone. */
export function setSessionExpiredHandler(handler: (() => void) | null): void {
  onSessionExpired = handler;
}

export function buildUrl(path: string, query: Record<string, QueryValue> = {}): string {
  const parameters = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') parameters.set(name, String(value));
  }
  const search = parameters.toString();
  return `/api${path}${search ? `?${search}` : ''}`;
}

async function errorOf(response: Response): Promise<ApiRequestError> {
  let body: Partial<ConsoleError> | null = null;
  try {
    body = (await response.json()) as Partial<ConsoleError>;
  } catch {
    // Not the /api shape (a proxy's page, say): fall back to the status line.
  }
  const error = body?.error;
  return new ApiRequestError(
    response.status,
    error?.code ?? 'http_error',
    error?.message ?? `The server answered ${response.status} ${response.statusText}.`.trim(),
    error?.field,
    error?.rule && { rule: error.rule, limit: error.limit },
  );
}

export async function apiRequest<Result>(method: string, path: string, options: RequestOptions = {}): Promise<Result> {
  let response: Response;
  try {
    response = await fetch(buildUrl(path, options.query), {
      method,
      credentials: 'same-origin',
      headers: {
        accept: 'application/json',
        ...(options.body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
      ...(options.signal && { signal: options.signal }),
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiRequestError(0, 'network_error', 'Could not reach the gateway. Check your connection and try again.');
  }
  if (!response.ok) {
    const error = await errorOf(response);
    if (error.status === 401 && error.code === 'not_signed_in') onSessionExpired?.();
    throw error;
  }
  if (response.status === 204) return undefined as Result;
  const text = await response.text();
  return (text ? JSON.parse(text) : undefined) as Result;
}

export const api = {
  get: <Result>(path: string, options?: RequestOptions) => apiRequest<Result>('GET', path, options),
  post: <Result>(path: string, body?: unknown) => apiRequest<Result>('POST', path, { body: body ?? {} }),
  patch: <Result>(path: string, body: unknown) => apiRequest<Result>('PATCH', path, { body }),
  delete: <Result>(path: string) => apiRequest<Result>('DELETE', path),
};
