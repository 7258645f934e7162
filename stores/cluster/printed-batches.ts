/**
 * @module stores/cluster/printed-batches
 * The cluster node's events printed when the publisher cuts them (every few milliseconds, at most 100
 * events a batch: gateway/events/publisher.ts), and joined into Kafka messages as bytes when they are
 * appended (every 50 ms at most: kafka-event-log.ts). Printing a whole append's events at once
 * (kafka-messages.ts) held the relay thread long enough, twenty times a second at c=1, that a request
 * arriving meanwhile waited for it; printed in the flushes' small batches, no single
 * step holds it for long, and an append costs a join of buffers (docs/performance.md, "The cluster
 * node's appends printed ahead").
 *
 * A printed batch is a header line, `[traffic, count, first key, last key]` in JSON, then the events'
 * JSON array. Batches of traffic only are joined into format-2 values (contracts/events/log-message.ts)
 * under the same rules as `messagesOf`: no key, at most about MESSAGE_EVENTS events or MESSAGE_BYTES
 * bytes a message, and a request's events never in two messages (a cut between two batches falls only
 * where their keys differ). A batch holding entity events, or batches too large to join, are read back
 * and go through `messagesOf`.
 */
import { type GatewayEvent, partitionKeyOf, streamOf } from '../../contracts/events/index.ts';
import { LOG_MESSAGE_FORMAT } from '../../contracts/events/log-message.ts';
import {
  MESSAGE_CHARACTERS,
  MESSAGE_EVENTS,
  messagesOf,
  type OutgoingMessage,
  type TopicNames,
} from './kafka-messages.ts';

/** A joined value stays under this many bytes (the broker refuses a partition's batch over 1 MB). */
export const MESSAGE_BYTES = MESSAGE_CHARACTERS;

const NEWLINE = 0x0a;
const VALUE_START = Buffer.from(`{"format":${LOG_MESSAGE_FORMAT},"events":[`);
const VALUE_END = Buffer.from(']}');
const COMMA = Buffer.from(',');

interface PrintedBatch {
  traffic: boolean;
  count: number;
  first: string;
  last: string;
  /** the events' JSON array, brackets included */
  body: Buffer;
}

/** `events` (at least one) as a printed batch. */
export function printBatch(events: readonly GatewayEvent[]): Buffer {
  if (events.length === 0) throw new Error('A printed batch holds at least one event.');
  const traffic = events.every((event) => streamOf(event.type) === 'traffic');
  const header = JSON.stringify([traffic, events.length, partitionKeyOf(events[0]!), partitionKeyOf(events.at(-1)!)]);
  return Buffer.from(`${header}\n${JSON.stringify(events)}`);
}

function readBatch(bytes: Uint8Array): PrintedBatch {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const newline = buffer.indexOf(NEWLINE);
  if (newline < 0) throw new Error('A printed batch has no header line.');
  const [traffic, count, first, last] = JSON.parse(buffer.toString('utf8', 0, newline)) as [
    boolean,
    number,
    string,
    string,
  ];
  return { traffic, count, first, last, body: buffer.subarray(newline + 1) };
}

function eventsOf(batch: PrintedBatch): GatewayEvent[] {
  // Printed by this process from its own typed events moments ago, as the outbox stores them.
  return JSON.parse(batch.body.toString('utf8')) as GatewayEvent[];
}

/** The events of printed batches, in order (for the outbox, when Kafka does not take them). */
export function eventsOfPrinted(batches: readonly Uint8Array[]): GatewayEvent[] {
  return batches.flatMap((bytes) => eventsOf(readBatch(bytes)));
}

/** Consecutive batches whose boundaries fall inside a request or entity (the next one's first key is the last one's). */
function runsOf(batches: readonly PrintedBatch[]): PrintedBatch[][] {
  const runs: PrintedBatch[][] = [];
  for (const batch of batches) {
    const run = runs.at(-1);
    const previous = run?.at(-1);
    if (run && previous && previous.last === batch.first) run.push(batch);
    else runs.push([batch]);
  }
  return runs;
}

/** One format-2 value holding the events of `batches`, in order. */
function joined(batches: readonly PrintedBatch[]): Buffer {
  const parts: Buffer[] = [VALUE_START];
  batches.forEach((batch, index) => {
    if (index > 0) parts.push(COMMA);
    parts.push(batch.body.subarray(1, batch.body.length - 1));
  });
  parts.push(VALUE_END);
  return Buffer.concat(parts);
}

/** The messages of an append of printed batches, by topic. */
export function messagesOfPrinted(batches: readonly Uint8Array[], topics: TopicNames): Map<string, OutgoingMessage[]> {
  const readBack: GatewayEvent[] = [];
  const traffic: OutgoingMessage[] = [];
  let message: PrintedBatch[] = [];
  let messageEvents = 0;
  let messageBytes = 0;
  for (const run of runsOf(batches.map(readBatch))) {
    const events = run.reduce((sum, batch) => sum + batch.count, 0);
    const bytes = run.reduce((sum, batch) => sum + batch.body.length, 0);
    if (run.some((batch) => !batch.traffic) || bytes > MESSAGE_BYTES) {
      for (const batch of run) readBack.push(...eventsOf(batch));
      continue;
    }
    if (message.length > 0 && (messageEvents + events > MESSAGE_EVENTS || messageBytes + bytes > MESSAGE_BYTES)) {
      traffic.push({ key: null, value: joined(message) });
      message = [];
      messageEvents = 0;
      messageBytes = 0;
    }
    message.push(...run);
    messageEvents += events;
    messageBytes += bytes;
  }
  if (message.length > 0) traffic.push({ key: null, value: joined(message) });
  const messages = readBack.length > 0 ? messagesOf(readBack, topics) : new Map<string, OutgoingMessage[]>();
  if (traffic.length > 0) messages.set(topics.traffic, [...(messages.get(topics.traffic) ?? []), ...traffic]);
  return messages;
}
