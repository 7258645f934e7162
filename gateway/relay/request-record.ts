/**
 * @module gateway/relay/request-record
 * What the gateway remembers about one relayed request while it runs, and the traffic event it becomes
 * when it ends: `request.completed`, carrying its usage when tokens were used, with their cost at the
 * price in force then.
 */
import type { RequestAttribution } from '../../contracts/attribution.ts';
import type {
  ChannelType,
  Endpoint,
  GatewayEvent,
  RequestCompleted,
  RequestUsage,
  UpstreamAttempt,
} from '../../contracts/events/index.ts';
import { isoTimePrinter } from '../events/iso-time.ts';
import { newEvent } from '../events/new-event.ts';
import type { PriceBook } from '../pricing/price-book.ts';
import type { TokenCounts } from '../providers/provider.ts';
import type { Route } from './channel-router.ts';
import { millisecondsSince } from './elapsed.ts';

const printStartedAt = isoTimePrinter();
const printOccurredAt = isoTimePrinter();

export class RequestRecord {
  readonly requestId: string;
  readonly endpoint: Endpoint;
  readonly startedAt: Date;
  readonly #startedClock: number;
  userId: string | null = null;
  tokenId: string | null = null;
  modelRequested: string | null = null;
  modelServed: string | null = null;
  channelId: string | null = null;
  /** for metrics and logs only: the channel's name */
  channelName: string | null = null;
  /** what the price database matches: the channel's kind and base URL, the model name sent upstream */
  channelType: ChannelType | null = null;
  channelBaseUrl: string | null = null;
  upstreamModel: string | null = null;
  /** the retry chain, one entry per upstream attempt */
  readonly attempts: UpstreamAttempt[] = [];
  stream = false;
  status = 200;
  errorType: string | null = null;
  errorMessage: string | null = null;
  firstTokenMs: number | null = null;
  clientAborted = false;
  /** who and what the request is for (attribution.ts); null when neither the client nor its key named any */
  attribution: RequestAttribution | null = null;
  /** the caller's own X-Request-Id, for tracing (see the contract's `clientRequestId`) */
  clientRequestId: string | null = null;
  usage: TokenCounts | null = null;
  usageSource: 'upstream' | 'estimated' = 'upstream';
  /** why the upstream's usage was refused and the tokens counted here instead, if it was */
  usageRefused: string | null = null;
  /** the cost `toEvents` computed, for the metrics; null when unpriced or no tokens were used */
  costNanoUsd: number | null = null;

  constructor(requestId: string, endpoint: Endpoint, now: Date = new Date(), clock: number = performance.now()) {
    this.requestId = requestId;
    this.endpoint = endpoint;
    this.startedAt = now;
    this.#startedClock = clock;
  }

  /** The channel an attempt goes to. */
  noteRoute(route: Route): void {
    this.channelId = route.channel.channelId;
    this.channelName = route.channel.name;
    this.channelType = route.channel.type;
    this.channelBaseUrl = route.channel.baseUrl;
    this.upstreamModel = route.upstreamModel;
  }

  markFirstToken(): void {
    this.firstTokenMs ??= millisecondsSince(this.#startedClock);
  }

  fail(status: number, errorType: string, message: string): void {
    this.status = status;
    this.errorType = errorType;
    this.errorMessage = message.slice(0, 500);
  }

  /** ms since the request started */
  elapsedMs(): number {
    return millisecondsSince(this.#startedClock);
  }

  /** The usage's cost as it stands, as `toEvents` will record it; null when unpriced or no tokens were used. */
  costWith(prices?: PriceBook): number | null {
    const usage = this.usage;
    if (!usage || usage.promptTokens + usage.completionTokens <= 0) return null;
    return this.#priced(usage, prices)?.costNanoUsd ?? null;
  }

  #priced(usage: TokenCounts, prices?: PriceBook) {
    return prices?.price(
      {
        model: this.modelRequested ?? '',
        upstreamModel: this.upstreamModel,
        channelType: this.channelType,
        baseUrl: this.channelBaseUrl,
        promptTokens: usage.promptTokens,
        at: this.startedAt,
      },
      usage,
    );
  }

  /**
   * The request's event (one: see the contract's version 2), in an array for the publisher.
   * @param prices the price book the usage's cost is computed with (none: unpriced)
   */
  toEvents(latencyMs = this.elapsedMs(), prices?: PriceBook): GatewayEvent[] {
    const startedAt = printStartedAt(this.startedAt.getTime());
    const occurredAt = printOccurredAt(Date.now());
    // Plain literals, no spreads: no copy of the usage object, and one object shape per event type.
    const completed: RequestCompleted['body'] = {
      requestId: this.requestId,
      userId: this.userId,
      tokenId: this.tokenId,
      endpoint: this.endpoint,
      modelRequested: this.modelRequested,
      modelServed: this.modelServed,
      channelId: this.channelId,
      stream: this.stream,
      status: this.status,
      errorType: this.errorType,
      errorMessage: this.errorMessage,
      startedAt,
      latencyMs,
      firstTokenMs: this.firstTokenMs,
      clientAborted: this.clientAborted,
    };
    if (this.attempts.length > 0) completed.attempts = this.attempts;
    if (this.clientRequestId !== null) completed.clientRequestId = this.clientRequestId;
    if (this.attribution !== null) completed.attribution = this.attribution;
    const usage = this.usage;
    if (usage && this.userId && this.tokenId && usage.promptTokens + usage.completionTokens > 0) {
      const priced = this.#priced(usage, prices);
      this.costNanoUsd = priced?.costNanoUsd ?? null;
      const recorded: RequestUsage = {
        promptTokens: usage.promptTokens,
        completionTokens: usage.completionTokens,
        cachedTokens: usage.cachedTokens,
        cacheWriteTokens: usage.cacheWriteTokens,
        reasoningTokens: usage.reasoningTokens,
        source: this.usageSource,
        costNanoUsd: this.costNanoUsd,
        price: priced?.price ?? null,
      };
      // A refusal matters only if it stood: a later, sound usage of the same reply was counted as sent.
      if (this.usageRefused !== null && this.usageSource === 'estimated') recorded.usageRefused = this.usageRefused;
      if (usage.cacheWrite1hTokens) recorded.cacheWrite1hTokens = usage.cacheWrite1hTokens;
      completed.usage = recorded;
    }
    return [newEvent('request.completed', completed, occurredAt)];
  }
}
