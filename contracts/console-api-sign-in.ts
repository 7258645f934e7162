/**
 * @module contracts/console-api-sign-in
 * The console API's sign-in methods: which are on (`GET /api/auth/methods`), and the reasons a single
 * sign-on can fail, which the callback hands to the console's sign-in page as `?sso_error=<code>`.
 */
import { z } from 'zod';

export const signInMethodsSchema = z.object({
  /** email and password sign-in and registration */
  password: z.boolean(),
  /** single sign-on through an OpenID Connect provider; null when not configured */
  sso: z
    .object({
      /** the provider's display name: "Sign in with <provider>" */
      provider: z.string(),
      /** where the browser goes to start; it may add `?redirect=/path` to land there afterwards */
      start_url: z.string(),
    })
    .nullable(),
});

export const ssoErrorCodeSchema = z.enum([
  /** the answer does not belong to a sign-in this browser started (or it took over ten minutes) */
  'sso_state_mismatch',
  /** the provider refused or the user cancelled at the provider */
  'sso_denied',
  /** the provider did not answer, or answered with an error, at discovery or the code exchange */
  'sso_provider_unavailable',
  /** the provider's answer did not pass validation (ID token signature, issuer, audience, nonce) */
  'sso_invalid_response',
  /** the provider sent no email for the user */
  'sso_email_missing',
  /** the provider does not vouch for the user's email */
  'sso_email_unverified',
  /** the matching account is disabled */
  'account_disabled',
]);

export type SignInMethods = z.infer<typeof signInMethodsSchema>;
export type SsoErrorCode = z.infer<typeof ssoErrorCodeSchema>;
