/**
 * @module stores/cluster/kafka-messages
 * Which events of an append share a Kafka message, and with which key (the value's format is
 * contracts/events/log-message.ts). The rules keep what the design needs for ordering:
 *
 * - Entity events: one message per entity per append, keyed by the entity (`partitionKeyOf`), so an
 *   entity's events stay in its partition, in order, as when each was a message of its own: an
 *   existing topic's entities keep their partitions across the change of format.
 * - Traffic events have no order across requests: they go in messages of up to MESSAGE_EVENTS events
 *   with no key, which the producer's partitioner hands out round-robin over the partitions that have
 *   a leader, so the messages of one append land in different partitions. A request's events (published
 *   together, adjacent in the append) are never split between two messages.
 *
 * One message per append instead of one per event is what makes the cluster node's Kafka path cheap:
 * kafkajs's cost is per record (a buffer, varints and a hash each) and per partition of a request
 * (figures: docs/performance.md, "The cluster node").
 */
import { type GatewayEvent, partitionKeyOf, streamOf } from '../../contracts/events/index.ts';
import { encodeLogMessage } from '../../contracts/events/log-message.ts';

/**
 * Events per message at most: about 150 KB of traffic events. The broker refuses a partition's record
 * batch over `message.max.bytes` (1 MB by default); a drain of the outbox (1,000 events) makes four
 * such messages, which the round-robin puts in four partitions.
 */
export const MESSAGE_EVENTS = 250;
/** A message whose value is longer than this (in UTF-16 units, up to three bytes each) is split in two. */
export const MESSAGE_CHARACTERS = 256 * 1024;

export interface TopicNames {
  entity: string;
  traffic: string;
}

/** A message as the producer sends it: printed here, or joined from printed batches (printed-batches.ts). */
export interface OutgoingMessage {
  key: string | null;
  value: string | Buffer;
}

export interface KafkaMessage extends OutgoingMessage {
  value: string;
}

/** The messages of one append, by topic, in the order their events were appended. */
export function messagesOf(events: readonly GatewayEvent[], topics: TopicNames): Map<string, KafkaMessage[]> {
  const byEntity = new Map<string, GatewayEvent[]>();
  const traffic: GatewayEvent[] = [];
  for (const event of events) {
    if (streamOf(event.type) === 'traffic') {
      traffic.push(event);
      continue;
    }
    const key = partitionKeyOf(event);
    const entity = byEntity.get(key);
    if (entity) entity.push(event);
    else byEntity.set(key, [event]);
  }
  const messages = new Map<string, KafkaMessage[]>();
  if (byEntity.size > 0) {
    messages.set(
      topics.entity,
      [...byEntity].flatMap(([key, entityEvents]) => encodeChunks(entityEvents, key, () => false)),
    );
  }
  if (traffic.length > 0) messages.set(topics.traffic, encodeChunks(traffic, null, sameRequest));
  return messages;
}

type Together = (left: GatewayEvent, right: GatewayEvent) => boolean;

const sameRequest: Together = (left, right) => partitionKeyOf(left) === partitionKeyOf(right);

/** Where to cut `events` at or after `at`, never between two events that `together` ties. */
function cutPoint(events: readonly GatewayEvent[], at: number, together: Together): number {
  let end = at;
  while (end < events.length && together(events[end - 1]!, events[end]!)) end++;
  return end;
}

/** Messages of at most MESSAGE_EVENTS events, each value under MESSAGE_CHARACTERS. */
function encodeChunks(events: readonly GatewayEvent[], key: string | null, together: Together): KafkaMessage[] {
  const messages: KafkaMessage[] = [];
  for (let start = 0; start < events.length; ) {
    const end = cutPoint(events, Math.min(start + MESSAGE_EVENTS, events.length), together);
    encodeBounded(events.slice(start, end), key, together, messages);
    start = end;
  }
  return messages;
}

/** Encodes `events` as one message, or halves it until each value is under MESSAGE_CHARACTERS. */
function encodeBounded(
  events: readonly GatewayEvent[],
  key: string | null,
  together: Together,
  into: KafkaMessage[],
): void {
  const value = encodeLogMessage(events);
  if (value.length <= MESSAGE_CHARACTERS || events.length === 1) {
    into.push({ key, value });
    return;
  }
  const middle = Math.ceil(events.length / 2);
  const tied = cutPoint(events, middle, together);
  // Only when every event from the middle on is tied to the one before (one request's events) is a
  // request split: the value must fit, or the broker refuses it.
  const half = tied < events.length ? tied : middle;
  encodeBounded(events.slice(0, half), key, together, into);
  encodeBounded(events.slice(half), key, together, into);
}
