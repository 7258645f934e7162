/**
 * @module gateway/config/auth-rate-limit-settings
 * The sign-in and password-check limits (`AUTH_RATE_LIMIT_*`), read with the other settings at start;
 * what they limit is in gateway/console-api/auth-rate-limit.ts.
 */

export interface AuthRateLimitSettings {
  /** attempts per (email, client address) pair, and password checks per account, per window */
  attempts: number;
  /** attempts per client address per window */
  addressAttempts: number;
  /** attempts per email per window from addresses that have not signed in to it lately */
  emailAttempts: number;
  windowMs: number;
}

function positiveInteger(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new Error(`${name} must be a positive integer, got "${value}".`);
  return parsed;
}

export function readAuthRateLimitSettings(environment: NodeJS.ProcessEnv = process.env): AuthRateLimitSettings {
  const attempts = positiveInteger(environment.AUTH_RATE_LIMIT_ATTEMPTS, 10, 'AUTH_RATE_LIMIT_ATTEMPTS');
  const read = (name: string, fallback: number) => positiveInteger(environment[name], fallback, name);
  return {
    attempts,
    addressAttempts: read('AUTH_RATE_LIMIT_IP_ATTEMPTS', attempts * 5),
    emailAttempts: read('AUTH_RATE_LIMIT_EMAIL_ATTEMPTS', attempts * 10),
    windowMs: read('AUTH_RATE_LIMIT_WINDOW_MS', 300_000),
  };
}
