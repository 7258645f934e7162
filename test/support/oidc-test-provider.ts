/**
 * @module test/support/oidc-test-provider
 * A real OpenID Connect provider for the single sign-on tests: the certified `oidc-provider` package on
 * a loopback port, with one confidential client (the gateway) and a few accounts. Its development
 * login form takes any password; the login names the account. It puts the email in UserInfo rather
 * than the ID token (as the specification's conformant default), so the gateway's UserInfo path runs.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export const TEST_CLIENT_ID = 'gateway-console';
export const TEST_CLIENT_SECRET = 'test-client-secret-0123456789abcdefghij';

export interface TestAccount {
  email: string;
  email_verified: boolean;
  name?: string;
  groups?: string[];
}

export interface TestProvider {
  issuer: string;
  /** Stops answering: connections are refused until `start` again. */
  stop(): Promise<void>;
  start(): Promise<void>;
}

export async function startTestProvider(options: {
  /** the gateways' callback URLs (each gateway's PUBLIC_URL and `/api/auth/sso/callback`) */
  redirectUris: string[];
  accounts: Record<string, TestAccount>;
}): Promise<TestProvider> {
  // The provider's URLs name its port, so the port comes first and the provider answers from then on.
  let handler: RequestListener = (_request, response) => void response.writeHead(503).end();
  const serve: RequestListener = (request, response) => handler(request, response);
  let server: Server = createServer(serve);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: TEST_CLIENT_ID,
        client_secret: TEST_CLIENT_SECRET,
        redirect_uris: options.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    pkce: { required: () => true },
    ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 3600, IdToken: 600, Interaction: 600, Session: 3600 },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'groups'] },
    cookies: { keys: ['test-provider-cookie-key-0123456789'] },
    async findAccount(_context, accountId) {
      const account = options.accounts[accountId];
      if (!account) return undefined;
      return { accountId, claims: async () => ({ sub: accountId, ...account }) };
    },
  });
  handler = provider.callback();
  return {
    issuer,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    async start() {
      server = createServer(serve);
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    },
  };
}
