/**
 * @module gateway/console-api/sign-in-routes
 * Which sign-in methods are on, and single sign-on: `/auth/sso/start` sends the browser to the
 * provider, `/auth/sso/callback` takes it back, exchanges the code and issues the console session.
 * Both are browser navigations, so a failure sends the browser to the sign-in page with
 * `?sso_error=<code>`, which the page explains. With local passwords off, the password routes refuse.
 */
import { type Request, type Response, Router } from 'express';
import type { SignInMethods } from '../../contracts/console-api-sign-in.ts';
import type { CommandContext } from '../commands/command-context.ts';
import { accountForSso } from '../commands/sso-accounts.ts';
import type { SignInSettings, SsoSettings } from '../config/sign-in-settings.ts';
import { ApiError } from './api-error.ts';
import { startSession } from './auth-routes.ts';
import { newFlowExpiry, setFlowCookie, takeFlowCookie } from './sso-flow-cookie.ts';
import { identityOf } from './sso-identity.ts';
import { SsoError, SsoProvider } from './sso-provider.ts';

const START_PATH = '/api/auth/sso/start';

/** A console path to land on: only paths of this site, never an absolute or protocol-relative URL. */
function landing(target: unknown): string {
  return typeof target === 'string' && target.startsWith('/') && !target.startsWith('//') && !target.includes('\\')
    ? target
    : '/overview';
}

function toSignInPage(response: Response, error: unknown): void {
  if (!(error instanceof SsoError)) throw error;
  response.redirect(303, `/sign-in?sso_error=${error.code}`);
}

function ssoRoutes(router: Router, context: CommandContext, sso: SsoSettings, secureCookies: boolean): void {
  const provider = new SsoProvider(sso);
  const flowKey = context.keys.signInFlow;

  router.get('/auth/sso/start', async (request, response) => {
    try {
      const { url, start } = await provider.start();
      const flow = { ...start, redirect: landing(request.query.redirect), expiresAt: newFlowExpiry(Date.now()) };
      setFlowCookie(response, flow, flowKey, secureCookies);
      response.redirect(302, url.href);
    } catch (error) {
      toSignInPage(response, error);
    }
  });

  router.get('/auth/sso/callback', async (request: Request, response) => {
    const flow = takeFlowCookie(request, response, flowKey, secureCookies);
    try {
      // Checked here as well as by the library, so a stray or replayed answer gets its own clear code.
      if (!flow || request.query.state !== flow.state) {
        throw new SsoError('sso_state_mismatch', 'This sign-in was not started in this browser, or took too long.');
      }
      const callbackUrl = new URL(sso.redirectUri);
      callbackUrl.search = new URL(request.originalUrl, callbackUrl).search;
      const claims = await provider.finish(callbackUrl, flow);
      const user = await accountForSso(context, identityOf(claims, sso));
      if (user.disabled) throw new SsoError('account_disabled', 'This account is disabled.');
      startSession(response, user, context.keys.sessions, secureCookies);
      response.redirect(303, flow.redirect);
    } catch (error) {
      toSignInPage(response, error);
    }
  });
}

export function signInRoutes(context: CommandContext, settings: SignInSettings, secureCookies: boolean): Router {
  const router = Router();
  const { sso, localPasswords } = settings;
  const methods: SignInMethods = {
    password: localPasswords,
    sso: sso ? { provider: sso.providerName, start_url: START_PATH } : null,
  };
  router.get('/auth/methods', (_request, response) => void response.json(methods));

  if (!localPasswords) {
    router.post(['/auth/register', '/auth/login', '/auth/password'], () => {
      throw new ApiError(
        403,
        'local_passwords_off',
        `Passwords are turned off on this gateway: sign in with ${sso?.providerName ?? 'single sign-on'} instead.`,
      );
    });
  }
  if (sso) ssoRoutes(router, context, sso, secureCookies);
  else {
    router.get(['/auth/sso/start', '/auth/sso/callback'], () => {
      throw new ApiError(404, 'sso_not_configured', 'Single sign-on is not configured on this gateway (OIDC_ISSUER).');
    });
  }
  return router;
}
