/**
 * @module test/support/generated-traffic
 * Deterministic traffic for the usage projection tests, with what the real log holds besides the
 * plain case: refused requests with no user, key or model; usage logged before its request; the same
 * event twice; the same request's events again under new event ids; latencies on the rounding and
 * bucket boundaries the overview's percentile must get exactly right; priced and unpriced usage.
 */
import type { GatewayEvent, RequestCompleted, UsagePrice, UsageRecorded } from '../../contracts/events/index.ts';
import { newEvent } from '../../gateway/events/new-event.ts';
import { costNanoUsd } from '../../gateway/pricing/cost.ts';
import { priceFromConfig } from '../../gateway/pricing/price-book.ts';

const MODELS = ['gpt-4o-mini', 'gpt-4o', 'claude-sonnet-4-5'];
/** `gpt-4o` has no price: its requests are unpriced, the others cost what their tokens say. */
const PRICES: Record<string, UsagePrice> = {
  'gpt-4o-mini': priceFromConfig('gpt-4o-mini', {
    input_per_million: 0.15,
    output_per_million: 0.6,
    cache_read_per_million: 0.075,
  }),
  'claude-sonnet-4-5': priceFromConfig('claude-sonnet-4-5', {
    input_per_million: 3,
    output_per_million: 15,
    cache_read_per_million: 0.3,
    cache_write_per_million: 3.75,
  }),
};
/** Values whose rounding or bucket is easy to get wrong by one. */
const EDGE_LATENCIES = [0, 0.5, 1.49, 31.5, 31.49, 32, 33.5, 63.5, 64, 67.5, 2047.5, 2048, 3071.5];

export class SeededRandom {
  #seed: number;

  constructor(seed: number) {
    this.#seed = seed;
  }

  /** mulberry32 */
  next(): number {
    this.#seed = (this.#seed + 0x6d2b79f5) | 0;
    let t = this.#seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  below(limit: number): number {
    return Math.floor(this.next() * limit);
  }
}

function latencyOf(random: SeededRandom): number {
  const kind = random.next();
  if (kind < 0.1) return EDGE_LATENCIES[random.below(EDGE_LATENCIES.length)]!;
  if (kind < 0.2) return random.next() * 40;
  if (kind < 0.97) return 150 + random.next() * 4000;
  return 30_000 + random.next() * 600_000;
}

/**
 * The two events (or one, for a refused request) of `requests` requests between `start` and `start + spanMs`,
 * as releases before `request.completed` version 2 logged them; with `oneEventPerRequest`, the same
 * traffic as the gateway logs it now, each request's usage inside its request's event (no usage can
 * then come before its request).
 */
export function generatedTraffic(
  requests: number,
  start: number,
  spanMs: number,
  seed = 7,
  oneEventPerRequest = false,
): GatewayEvent[] {
  const random = new SeededRandom(seed);
  const events: GatewayEvent[] = [];
  for (let index = 0; index < requests; index++) {
    const refused = random.next() < 0.05;
    const user = random.below(6);
    const model = MODELS[random.below(MODELS.length)]!;
    const failed = !refused && random.next() < 0.05;
    const startedAt = new Date(start + random.below(spanMs)).toISOString();
    const requestId = `request-${seed}-${index}`;
    const request: RequestCompleted = newEvent('request.completed', {
      requestId,
      userId: refused ? null : `user-${user}`,
      tokenId: refused ? null : `token-${user}-${random.below(3)}`,
      endpoint: 'chat.completions',
      modelRequested: refused && random.next() < 0.5 ? null : model,
      modelServed: refused ? null : model,
      channelId: refused ? null : `channel-${model.startsWith('claude') ? 'a' : 'o'}`,
      stream: random.next() < 0.5,
      status: refused ? 401 : failed ? 502 : 200,
      errorType: refused ? 'invalid_api_key' : failed ? 'upstream_error' : null,
      errorMessage: null,
      startedAt,
      latencyMs: refused ? random.next() * 3 : latencyOf(random),
      firstTokenMs: null,
      clientAborted: false,
    });
    if (refused) {
      events.push(request);
      continue;
    }
    const promptTokens = random.below(3000);
    const completionTokens = failed ? 0 : random.below(900);
    const cachedTokens = random.below(50);
    const counts = {
      promptTokens,
      completionTokens,
      cachedTokens,
      // Derived from the prompt, not drawn: it takes no number from the sequence the other figures come from.
      cacheWriteTokens: Math.max(0, Math.min(promptTokens - cachedTokens, promptTokens % 97)),
      reasoningTokens: random.below(20),
    };
    const price = PRICES[model] ?? null;
    const usage: UsageRecorded = newEvent('usage.recorded', {
      requestId,
      userId: request.body.userId!,
      tokenId: request.body.tokenId!,
      channelId: request.body.channelId,
      model,
      startedAt,
      ...counts,
      source: 'upstream',
      costNanoUsd: price ? costNanoUsd(price, counts) : null,
      price,
    });
    const usageFirst = random.next() < 0.15;
    const again = random.next();
    const otherId = again >= 0.03 && again < 0.06 ? newEvent('channel.removed', { channelId: '' }).eventId : '';
    if (oneEventPerRequest) {
      const { source, costNanoUsd: cost, price: priced } = usage.body;
      const merged: RequestCompleted = {
        ...request,
        body: { ...request.body, usage: { ...counts, source, costNanoUsd: cost, price: priced } },
      };
      events.push(merged);
      if (again < 0.03) events.push(merged);
      else if (otherId) events.push({ ...merged, eventId: otherId });
      continue;
    }
    events.push(...(usageFirst ? [usage, request] : [request, usage]));
    if (again < 0.03) events.push(usage);
    else if (otherId) events.push({ ...request, eventId: otherId });
  }
  // A second delivery of a stretch of the log, as a publisher retrying after an unclear failure would.
  return [...events, ...events.slice(Math.floor(events.length / 3), Math.floor(events.length / 3) + 50)];
}
