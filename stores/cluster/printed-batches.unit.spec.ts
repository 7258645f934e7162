/**
 * The publisher's batches printed ahead and joined into Kafka messages as bytes: the messages carry the
 * events as `messagesOf` would (traffic unkeyed in few messages, a request's events never split, an
 * entity's events keyed by it and in order, every value under the broker's limit), and the outbox gets
 * the same events back.
 */
import { describe, expect, it } from 'vitest';
import type { GatewayEvent } from '../../contracts/events/index.ts';
import { decodeLogMessage } from '../../contracts/events/log-message.ts';
import { newEvent } from '../../gateway/events/new-event.ts';
import { requestEvents } from '../../test/support/request-events.ts';
import { MESSAGE_EVENTS, type OutgoingMessage } from './kafka-messages.ts';
import { eventsOfPrinted, MESSAGE_BYTES, messagesOfPrinted, printBatch } from './printed-batches.ts';

const topics = { entity: 'entity-events', traffic: 'traffic-events' };

const requests = (count: number, from = 0) =>
  Array.from({ length: count }, (_, index) => requestEvents(`r${from + index}`)).flat();

const text = (message: OutgoingMessage) =>
  typeof message.value === 'string' ? message.value : message.value.toString('utf8');

const decoded = (messages: readonly OutgoingMessage[]) => messages.map((message) => decodeLogMessage(text(message)));

/** `events` cut into printed batches of `size`, as the publisher cuts its queue (requests may straddle two). */
function printed(events: readonly GatewayEvent[], size: number): Buffer[] {
  const batches: Buffer[] = [];
  for (let start = 0; start < events.length; start += size) batches.push(printBatch(events.slice(start, start + size)));
  return batches;
}

const requestIdOf = (event: GatewayEvent) => (event.body as { requestId: string }).requestId;

/** No message ends with a request whose other event opens the next message. */
function expectNoRequestSplit(values: ReadonlyArray<{ events: GatewayEvent[] }>): void {
  for (let index = 1; index < values.length; index++)
    expect(requestIdOf(values[index]!.events[0]!)).not.toBe(requestIdOf(values[index - 1]!.events.at(-1)!));
}

describe('printed traffic', () => {
  it('is joined into one unkeyed message per append when it fits, the events in order', () => {
    const traffic = requests(40);
    const messages = messagesOfPrinted(printed(traffic, 13), topics);
    expect([...messages.keys()]).toEqual([topics.traffic]);
    const [message] = messages.get(topics.traffic)!;
    expect(message!.key).toBeNull();
    expect(Buffer.isBuffer(message!.value)).toBe(true);
    const [value] = decoded(messages.get(topics.traffic)!);
    expect(value!.unreadable).toEqual([]);
    expect(value!.events).toEqual(traffic);
  });

  it('is cut near MESSAGE_EVENTS events, only where the batches’ boundary falls between two requests', () => {
    // Batches of 7 events: every other boundary falls inside a request, which must not be cut there.
    const traffic = requests(3 * MESSAGE_EVENTS);
    const messages = messagesOfPrinted(printed(traffic, 7), topics).get(topics.traffic)!;
    const values = decoded(messages);
    expect(values.length).toBeGreaterThan(5);
    expect(values.flatMap((value) => value.events)).toEqual(traffic);
    for (const value of values) expect(value.events.length).toBeLessThanOrEqual(MESSAGE_EVENTS + 7);
    expectNoRequestSplit(values);
  });

  it('too long for one message is split under the broker’s limit, a request’s events still together', () => {
    const long = 'x'.repeat(MESSAGE_BYTES / 8);
    const traffic = Array.from({ length: 12 }, (_, index) => requestEvents(`r${index}`, { errorMessage: long })).flat();
    const messages = messagesOfPrinted(printed(traffic, 5), topics).get(topics.traffic)!;
    expect(messages.length).toBeGreaterThan(1);
    for (const message of messages) expect(Buffer.byteLength(text(message))).toBeLessThanOrEqual(MESSAGE_BYTES);
    const values = decoded(messages);
    expect(values.flatMap((value) => value.events)).toEqual(traffic);
    expectNoRequestSplit(values);
  });

  it('reads back as the same events for the outbox', () => {
    const traffic = requests(9);
    expect(eventsOfPrinted(printed(traffic, 4))).toEqual(traffic);
  });
});

describe('printed batches with entity events', () => {
  it('send each entity’s events keyed by it and in order, and the traffic beside them complete', () => {
    const traffic = requests(6);
    const first = newEvent('token.updated', { tokenId: 't1', userId: 'u1', enabled: false });
    const second = newEvent('token.revoked', { tokenId: 't1', userId: 'u1' });
    const other = newEvent('user.updated', { userId: 'u1', disabled: true });
    const batches = [
      printBatch(traffic.slice(0, 3)),
      printBatch([traffic[3]!, first, other]),
      printBatch(traffic.slice(4, 8)),
      printBatch([second, ...traffic.slice(8)]),
    ];
    const messages = messagesOfPrinted(batches, topics);
    const entity = messages.get(topics.entity)!;
    expect(entity.map((message) => message.key)).toEqual(['t1', 'u1']);
    expect(decoded([entity[0]!])[0]!.events).toEqual([first, second]);
    expect(decoded([entity[1]!])[0]!.events).toEqual([other]);
    const sent = decoded(messages.get(topics.traffic)!).flatMap((value) => value.events);
    const byId = (events: readonly GatewayEvent[]) =>
      [...events].sort((left, right) => left.eventId.localeCompare(right.eventId));
    expect(byId(sent)).toEqual(byId(traffic));
    const byRequest = new Map<string, number>();
    for (const [index, value] of decoded(messages.get(topics.traffic)!).entries())
      for (const event of value.events) {
        const seen = byRequest.get(requestIdOf(event));
        if (seen !== undefined) expect(seen).toBe(index);
        byRequest.set(requestIdOf(event), index);
      }
    expect(eventsOfPrinted(batches)).toEqual([
      ...traffic.slice(0, 4),
      first,
      other,
      ...traffic.slice(4, 8),
      second,
      ...traffic.slice(8),
    ]);
  });
});
