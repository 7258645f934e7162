/**
 * @module contracts/events/log-message
 * The value of one message in the cluster's event log (a Kafka record), in two formats that readers
 * must both accept for as long as a topic may hold them:
 *
 * - format 1, the first: one event per message, its envelope as the whole value;
 * - format 2: `{"format":2,"events":[…]}`, several events per message, in the order they were appended.
 *
 * Format 2 exists because a Kafka record costs its producer, its broker and its consumer more than the
 * bytes it carries (figures: docs/performance.md, "The cluster node"). A message's events are applied
 * and committed together, so a crash re-delivers all of them or none; the writer decides which events
 * may share a message (the partitioning rules of stores/cluster/kafka-event-log.ts). Each event inside is
 * read on its own, so one malformed event does not take its neighbours down with it.
 */
import { z } from 'zod';
import type { GatewayEvent } from './index.ts';
import { upcast } from './upcast.ts';

export const LOG_MESSAGE_FORMAT = 2;

export const eventBatchMessageV2 = z.object({
  format: z.literal(LOG_MESSAGE_FORMAT),
  events: z.array(z.unknown()).min(1),
});

export type EventBatchMessage = z.infer<typeof eventBatchMessageV2>;

/** The value of a message carrying `events` (at least one), in the current format. */
export function encodeLogMessage(events: readonly GatewayEvent[]): string {
  if (events.length === 0) throw new Error('A log message carries at least one event.');
  return JSON.stringify({ format: LOG_MESSAGE_FORMAT, events });
}

export interface DecodedLogMessage {
  /** The readable events, lifted to their current versions, in the message's order. */
  events: GatewayEvent[];
  /** Events of a batch that could not be read, by their position in it. */
  unreadable: Array<{ index: number; error: string }>;
}

/**
 * Reads a message of either format. Throws when the message as a whole cannot be read: not JSON, or
 * a format this reader does not know (written by a newer release: upgrade the reader).
 */
export function decodeLogMessage(text: string): DecodedLogMessage {
  const value: unknown = JSON.parse(text);
  if (value === null || typeof value !== 'object' || !('format' in value)) {
    // Format 1: the value is the event itself (an event's envelope has no `format` field).
    return { events: [upcast(value)], unreadable: [] };
  }
  // The common message passes a hand check without zod's copy of its array; zod words any error.
  const batch = value as { format: unknown; events?: unknown };
  if (batch.format === LOG_MESSAGE_FORMAT && Array.isArray(batch.events) && batch.events.length > 0) {
    return decodeEvents(batch.events);
  }
  const parsed = eventBatchMessageV2.safeParse(value);
  if (!parsed.success) {
    const format = (value as { format: unknown }).format;
    throw new Error(
      format === LOG_MESSAGE_FORMAT
        ? `A log message of format ${LOG_MESSAGE_FORMAT} is malformed: ${parsed.error.message}`
        : `A log message of format ${JSON.stringify(format)} is not readable by this release (it reads formats 1 and ${LOG_MESSAGE_FORMAT}).`,
    );
  }
  return decodeEvents(parsed.data.events);
}

function decodeEvents(events: readonly unknown[]): DecodedLogMessage {
  const decoded: DecodedLogMessage = { events: [], unreadable: [] };
  for (let index = 0; index < events.length; index++) {
    try {
      decoded.events.push(upcast(events[index]));
    } catch (error) {
      decoded.unreadable.push({ index, error: String(error) });
    }
  }
  return decoded;
}
