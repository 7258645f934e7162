/**
 * One gateway for the whole suite, in front of the agent upstream, with one channel of each kind. Every
 * channel lists the clients' default models, so a client's own model reaches whichever channel is on:
 * the suite turns one channel on at a time (through the console API, as an administrator would) and
 * runs the clients against it together.
 */
import { ConsoleClient } from '../support/console-client.ts';
import { type Harness, startHarness } from '../support/gateway-harness.ts';
import type { AgentUpstream } from './agent-upstream/agent-upstream.ts';
import { clients } from './client-list.ts';

/** The matrix's columns: each channel kind, and an OpenAI channel serving the Responses API itself. */
export const channelKinds = ['anthropic', 'openai-responses', 'openai', 'gemini', 'bedrock', 'azure'] as const;
export type ChannelKind = (typeof channelKinds)[number];

const ADMIN = { email: 'clients-admin@example.com', password: 'a long admin password' };

export interface ClientGateway {
  harness: Harness;
  /** Enables the channel of this kind and disables the others. */
  use(kind: ChannelKind): Promise<void>;
  /** A new key on its own account's behalf, and its id, to find the usage recorded for it. */
  newKey(name: string): Promise<{ key: string; tokenId: string }>;
  stop(): Promise<void>;
}

function channelSettings(kind: ChannelKind, upstreamUrl: string) {
  const models = [...new Set(clients.flatMap((client) => client.models))];
  const common = { name: `clients-${kind}`, models, api_key: 'agent-upstream-key', enabled: false };
  switch (kind) {
    case 'openai':
      return { ...common, type: 'openai', base_url: `${upstreamUrl}/v1` };
    case 'openai-responses':
      return { ...common, type: 'openai', base_url: `${upstreamUrl}/v1`, responses_api: true };
    case 'bedrock':
      return { ...common, type: 'bedrock', base_url: upstreamUrl, region: 'us-east-1' };
    default:
      return { ...common, type: kind, base_url: upstreamUrl };
  }
}

export async function startClientGateway(upstream: AgentUpstream): Promise<ClientGateway> {
  const harness = await startHarness({
    environment: {
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      // A failing cell fails at once and on its own: no retry, and no breaker opened for the next cell.
      UPSTREAM_MAX_ATTEMPTS: '1',
      CIRCUIT_FAILURE_THRESHOLD: '0',
    },
  });
  const admin = new ConsoleClient(harness.baseUrl);
  const signedIn = await admin.call('POST', '/api/auth/login', ADMIN);
  if (signedIn.status !== 200) throw new Error(`admin sign-in failed: ${JSON.stringify(signedIn.body)}`);
  const ids = new Map<ChannelKind, string>();
  for (const kind of channelKinds) {
    const created = await admin.call('POST', '/api/channels', channelSettings(kind, upstream.url));
    if (created.status !== 201) throw new Error(`channel ${kind}: ${created.status} ${JSON.stringify(created.body)}`);
    ids.set(kind, created.body.id);
  }
  const user = new ConsoleClient(harness.baseUrl);
  await user.register('clients@example.com');
  return {
    harness,
    async use(wanted) {
      for (const kind of channelKinds) {
        const changed = await admin.call('PATCH', `/api/channels/${ids.get(kind)}`, { enabled: kind === wanted });
        if (changed.status !== 200)
          throw new Error(`channel ${kind}: ${changed.status} ${JSON.stringify(changed.body)}`);
      }
    },
    async newKey(name) {
      const token = await user.createToken(name);
      return { key: token.key, tokenId: token.id };
    },
    stop: () => harness.stop(),
  };
}
