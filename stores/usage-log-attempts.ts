/**
 * @module stores/usage-log-attempts
 * A request's upstream attempts as both stores keep them (the event's array as JSON text), read back
 * for the usage log. A row written before attempts were kept, or an unreadable one, has none.
 */
import type { UsageLogAttempt } from '../contracts/console-api.ts';
import { upstreamAttemptSchema } from '../contracts/events/traffic-events.ts';

export function attemptsOf(stored: string | null | undefined): UsageLogAttempt[] {
  if (!stored) return [];
  try {
    const parsed = upstreamAttemptSchema.array().safeParse(JSON.parse(stored));
    if (!parsed.success) return [];
    return parsed.data.map((attempt) => ({
      channel_id: attempt.channelId,
      status: attempt.status,
      error: attempt.error,
      latency_ms: attempt.latencyMs,
    }));
  } catch {
    return [];
  }
}
