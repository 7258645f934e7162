/**
 * @module gateway/console-api/app
 * The Express app behind everything that is not a relay endpoint: the console API under `/api`, the
 * built console's static files, and the health probes.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import express from 'express';
import type { CommandContext } from '../commands/command-context.ts';
import { type AuthRateLimitSettings, readAuthRateLimitSettings } from '../config/auth-rate-limit-settings.ts';
import type { SignInSettings } from '../config/sign-in-settings.ts';
import type { PriceBook } from '../pricing/price-book.ts';
import type { ChannelHealth } from '../relay/circuit-breaker.ts';
import { accountRoutes } from './account-routes.ts';
import { adminAccountRoutes } from './admin-account-routes.ts';
import { ApiError, apiErrorHandler } from './api-error.ts';
import { authRoutes } from './auth-routes.ts';
import { channelRoutes } from './channel-routes.ts';
import { sessionUser } from './guards.ts';
import { modelRoutes } from './model-routes.ts';
import { payloadRoutes } from './payload-routes.ts';
import { sameOriginGuard } from './same-origin.ts';
import { securityHeaders } from './security-headers.ts';
import { sessionRoutes } from './session-routes.ts';
import { signInRoutes } from './sign-in-routes.ts';
import { consoleStaticFiles } from './static-files.ts';
import { tokenRoutes } from './token-routes.ts';
import { usageRoutes } from './usage-routes.ts';
import { userRoutes } from './user-routes.ts';

export interface ConsoleAppOptions {
  secureCookies: boolean;
  /** reverse-proxy hops to trust for the client address of the sign-in limits (`TRUST_PROXY`) */
  trustProxyHops?: number;
  /** the site's origin as browsers reach it (`PUBLIC_URL`): what state-changing calls must name */
  publicOrigin?: string | undefined;
  consoleDirectory: string;
  /** local passwords and single sign-on; absent: local passwords only */
  signIn?: SignInSettings;
  /** a channel's circuit breaker on this node, shown to admins in GET /api/channels */
  channelHealth?: (channelId: string) => ChannelHealth;
  /** the sign-in and password-check limits (`AUTH_RATE_LIMIT_*`; absent: the defaults) */
  authRateLimits?: AuthRateLimitSettings;
  /** channels entered here may name private addresses (`ALLOW_PRIVATE_UPSTREAMS`) */
  allowPrivateUpstreams?: boolean;
  /** the relay's prices, for the models page */
  prices?: PriceBook;
}

export function createConsoleApp(context: CommandContext, options: ConsoleAppOptions): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.use(securityHeaders());

  app.get('/healthz', (_request, response) => void response.json({ status: 'ok' }));
  app.get('/readyz', async (_request, response) => {
    const ready = await context.stores.ready().catch(() => false);
    response.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'unavailable', mode: context.stores.mode });
  });

  const api = express.Router();
  api.use((_request, response, next) => {
    response.setHeader('cache-control', 'no-store');
    next();
  });
  api.use(
    sameOriginGuard({
      publicOrigin: options.publicOrigin,
      trustProxyHops: options.trustProxyHops ?? 0,
      secure: options.secureCookies,
    }),
  );
  api.use(express.json({ limit: '1mb' }));
  api.use(sessionUser(context.stores.lookups, context.keys.sessions));
  const authOptions = {
    secureCookies: options.secureCookies,
    trustProxyHops: options.trustProxyHops ?? 0,
    rateLimits: options.authRateLimits ?? readAuthRateLimitSettings({}),
  };
  // Before the password routes, which it refuses when local passwords are off.
  api.use(signInRoutes(context, options.signIn ?? { localPasswords: true, sso: null }, options.secureCookies));
  api.use(authRoutes(context, authOptions));
  api.use(tokenRoutes(context));
  api.use(modelRoutes(context, options.prices));
  api.use(usageRoutes(context.stores.usage, context.stores.lookups));
  api.use(sessionRoutes(context.stores.usage, context.stores.lookups));
  api.use(payloadRoutes(context.stores.payloads));
  api.use(accountRoutes(context, authOptions));
  api.use(channelRoutes(context, options.channelHealth, options.allowPrivateUpstreams ?? false));
  api.use(userRoutes(context));
  api.use(adminAccountRoutes(context));
  api.use((request) => {
    throw new ApiError(404, 'not_found', `No console API route ${request.method} ${request.path}.`);
  });
  api.use(apiErrorHandler);
  app.use('/api', api);

  const indexFile = path.join(options.consoleDirectory, 'index.html');
  if (existsSync(indexFile)) {
    app.use(consoleStaticFiles(options.consoleDirectory));
    // The console routes on the client: unknown paths get the app shell, checked at every load.
    app.get(/^\/(?!api\/|v1\/).*/, (_request, response) =>
      response.setHeader('cache-control', 'no-cache').sendFile(indexFile),
    );
  }
  // Whatever no route took (a POST to a console page, a path the console does not have) is answered in
  // the console API's JSON error shape, never Express's HTML page.
  app.use((request, response) => {
    const error = new ApiError(404, 'not_found', `No route ${request.method} ${request.path}.`);
    response.status(404).setHeader('cache-control', 'no-store').json(error.body());
  });
  return app;
}
