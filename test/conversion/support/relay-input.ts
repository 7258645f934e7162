/** A RelayInput for calling a provider directly, as the relay would for one route. */
import type { RelayInput } from '../../../gateway/providers/provider.ts';

export function relayInput(
  body: Record<string, unknown>,
  options: { type?: 'openai' | 'anthropic'; thinkingToContent?: boolean; stream?: boolean } = {},
): RelayInput {
  return {
    route: {
      channel: {
        channelId: 'channel-1',
        name: 'test channel',
        type: options.type ?? 'anthropic',
        baseUrl: 'http://upstream.test',
        apiKey: 'upstream-key',
        priority: 0,
        weight: 1,
        modelMapping: {},
        thinkingToContent: options.thinkingToContent ?? false,
      },
      upstreamModel: String(body['model']),
    },
    body,
    stream: options.stream ?? body['stream'] === true,
    clientHeaders: {},
  };
}
