/**
 * @module gateway/commands/test-channel
 * The console's channel test: one non-streamed request for a single token, sent straight to the
 * channel's upstream (no routing, no usage recorded), reporting whether it answered and how fast.
 */
import { Agent, type Dispatcher, request } from 'undici';
import type { ChannelTestResult } from '../../contracts/console-api.ts';
import type { ChannelDocument } from '../../projector/read-models/channels/evolve.ts';
import { providerKinds } from '../providers/index.ts';
import type { RelayInput } from '../providers/provider.ts';
import { readyToSend, transportError } from '../relay/upstream-client.ts';
import { upstreamError } from '../relay/upstream-error.ts';
import { redirected } from '../relay/upstream-reply-errors.ts';
import { publicOnlyLookup } from '../security/public-lookup.ts';
import { decryptSecret } from '../security/upstream-key-cipher.ts';
import { CommandError } from './errors.ts';

const TEST_TIMEOUT_MS = 20_000;

/**
 * The test's connections when only public addresses may be called: the host name is resolved again at
 * connect time and a private answer refused, so a name re-pointed after the route's check is not called.
 */
let publicOnlyAgent: Agent | undefined;
function publicOnlyDispatcher(): Dispatcher {
  publicOnlyAgent ??= new Agent({ connect: { lookup: publicOnlyLookup() } });
  return publicOnlyAgent;
}

/** @param publicOnly connect to public addresses only (unless ALLOW_PRIVATE_UPSTREAMS) */
export async function testChannel(
  channel: ChannelDocument,
  encryptionKey: Buffer,
  model: string | undefined = channel.models[0],
  { publicOnly = false, now = Date.now }: { publicOnly?: boolean; now?: () => number } = {},
): Promise<ChannelTestResult> {
  if (!model) throw new CommandError('invalid', 'invalid_request', 'The channel lists no model to test with.', 'model');
  const input: RelayInput = {
    route: {
      channel: {
        channelId: channel.channelId,
        name: channel.name,
        type: channel.type,
        baseUrl: channel.baseUrl,
        apiKey: decryptSecret(channel.apiKeyCiphertext, encryptionKey),
        priority: channel.priority,
        weight: channel.weight,
        modelMapping: channel.modelMapping,
        thinkingToContent: false,
        ...(channel.apiVersion !== undefined && { apiVersion: channel.apiVersion }),
        ...(channel.region && { region: channel.region }),
      },
      upstreamModel: channel.modelMapping[model] ?? model,
    },
    body: providerKinds[channel.type].testRequest(model),
    stream: false,
    clientHeaders: {},
  };
  // Signed (a bedrock channel's AWS credential) just before it is sent, as the relay does.
  const built = await readyToSend(providerKinds[channel.type].buildRequest(input).upstream);
  const started = now();
  const result = (ok: boolean, status: number, error: string | null): ChannelTestResult => ({
    ok,
    status,
    latency_ms: Math.round(now() - started),
    model,
    error,
  });
  try {
    const response = await request(built.url, {
      method: 'POST',
      headers: built.headers,
      body: built.body,
      signal: AbortSignal.timeout(TEST_TIMEOUT_MS),
      ...(publicOnly && { dispatcher: publicOnlyDispatcher() }),
    });
    // undici does not follow redirects here: a 3xx means the base URL points somewhere else.
    if (response.statusCode >= 300 && response.statusCode < 400) {
      await response.body.dump();
      return result(false, response.statusCode, redirected(response.statusCode).message);
    }
    const text = await response.body.text();
    if (response.statusCode >= 400) {
      return result(
        false,
        response.statusCode,
        upstreamError(response.statusCode, text.slice(0, 4096), undefined, input.route.channel).message,
      );
    }
    return result(true, response.statusCode, null);
  } catch (error) {
    const timedOut = (error as Error).name === 'TimeoutError';
    return result(false, 0, timedOut ? 'The upstream did not answer within 20 s.' : transportError(error).message);
  }
}
