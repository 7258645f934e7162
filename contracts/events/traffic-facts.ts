/**
 * @module contracts/events/traffic-facts
 * What a request's event says, as the projections read it: a request, and when it used tokens, its
 * usage. Since `request.completed` version 2 a request is logged as one event carrying its usage
 * (traffic-events.ts); the projections still apply the request and the usage as two facts, each
 * exactly once, as they did when the log held two events. The usage fact is rebuilt here exactly as
 * the second event was written (same fields, same values), with the request event's id and time, so a
 * log of either shape projects to the same tables.
 */
import type { GatewayEvent, RequestCompleted, UsageRecorded } from './index.ts';

/** The usage a request's event carries, as the `usage.recorded` fact it stands for; null when none. */
export function usageFactOf(event: GatewayEvent): UsageRecorded | null {
  if (event.type !== 'request.completed') return null;
  const usage = event.body.usage;
  if (usage === undefined) return null;
  return {
    eventId: event.eventId,
    type: 'usage.recorded',
    version: 2,
    occurredAt: event.occurredAt,
    body: usageBody(event.body),
  };
}

function usageBody(request: RequestCompleted['body']): UsageRecorded['body'] {
  const usage = request.usage!;
  // Plain literal in the order the relay once wrote it: one object shape for every fact.
  const body: UsageRecorded['body'] = {
    requestId: request.requestId,
    // the contract refuses usage on a request without them
    userId: request.userId!,
    tokenId: request.tokenId!,
    channelId: request.channelId,
    model: request.modelRequested ?? '',
    startedAt: request.startedAt,
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    cachedTokens: usage.cachedTokens,
    cacheWriteTokens: usage.cacheWriteTokens,
    reasoningTokens: usage.reasoningTokens,
    source: usage.source,
    costNanoUsd: usage.costNanoUsd,
    price: usage.price,
  };
  if (usage.usageRefused !== undefined) body.usageRefused = usage.usageRefused;
  if (usage.cacheWrite1hTokens !== undefined) body.cacheWrite1hTokens = usage.cacheWrite1hTokens;
  return body;
}

/** `events` with each request's usage fact right after its request, in order. */
export function trafficFacts(events: readonly GatewayEvent[]): GatewayEvent[] {
  const facts: GatewayEvent[] = [];
  for (const event of events) {
    facts.push(event);
    const usage = usageFactOf(event);
    if (usage) facts.push(usage);
  }
  return facts;
}
