/**
 * Which events of an append share a Kafka message: an entity's events one message per entity, keyed by
 * it and in order (so it keeps its partition); traffic in messages of up to MESSAGE_EVENTS events with
 * no key, never splitting a request's two events, and a message too long for the broker split in two.
 */
import { describe, expect, it } from 'vitest';
import type { GatewayEvent } from '../../contracts/events/index.ts';
import { decodeLogMessage } from '../../contracts/events/log-message.ts';
import { newEvent } from '../../gateway/events/new-event.ts';
import { requestEvents } from '../../test/support/request-events.ts';
import { MESSAGE_CHARACTERS, MESSAGE_EVENTS, messagesOf } from './kafka-messages.ts';

const topics = { entity: 'entity-events', traffic: 'traffic-events' };

const requests = (count: number, from = 0) =>
  Array.from({ length: count }, (_, index) => requestEvents(`r${from + index}`)).flat();

const eventsOf = (messages: ReadonlyArray<{ value: string }>) =>
  messages.flatMap((message) => decodeLogMessage(message.value).events);

describe('entity events', () => {
  it('go one message per entity, keyed by the entity, each in the order appended', () => {
    const appended: GatewayEvent[] = [
      newEvent('token.updated', { tokenId: 't1', userId: 'u1', enabled: false }),
      newEvent('user.updated', { userId: 'u1', disabled: true }),
      newEvent('token.updated', { tokenId: 't1', userId: 'u1', enabled: true }),
      newEvent('token.revoked', { tokenId: 't2', userId: 'u1' }),
      newEvent('token.revoked', { tokenId: 't1', userId: 'u1' }),
    ];
    const messages = messagesOf(appended, topics).get(topics.entity)!;
    expect(messages.map((message) => message.key)).toEqual(['t1', 'u1', 't2']);
    expect(eventsOf([messages[0]!])).toEqual([appended[0], appended[2], appended[4]]);
    expect(eventsOf([messages[1]!])).toEqual([appended[1]]);
    expect(messagesOf(appended, topics).has(topics.traffic)).toBe(false);
  });
});

describe('traffic events', () => {
  it('share one message per append, with no key, beside the entity events of the same append', () => {
    const traffic = requests(10);
    const issued = newEvent('token.revoked', { tokenId: 't9', userId: 'u1' });
    const messages = messagesOf([...traffic.slice(0, 4), issued, ...traffic.slice(4)], topics);
    expect(messages.get(topics.traffic)).toHaveLength(1);
    expect(messages.get(topics.traffic)![0]!.key).toBeNull();
    expect(eventsOf(messages.get(topics.traffic)!)).toEqual(traffic);
    expect(eventsOf(messages.get(topics.entity)!)).toEqual([issued]);
  });

  it('are cut every MESSAGE_EVENTS events, but never between a request’s two events', () => {
    // An odd first event moves every request's pair across the boundary of MESSAGE_EVENTS.
    const lone = requestEvents('lone')[1];
    const traffic = [lone, ...requests(MESSAGE_EVENTS)];
    const messages = messagesOf(traffic, topics).get(topics.traffic)!;
    const cut = messages.map((message) => decodeLogMessage(message.value).events);
    expect(cut.map((events) => events.length)).toEqual([MESSAGE_EVENTS + 1, MESSAGE_EVENTS]);
    expect(cut.flat()).toEqual(traffic);
    const last = cut[0]!.at(-1)! as { body: { requestId: string } };
    const first = cut[1]![0]! as { body: { requestId: string } };
    expect(last.body.requestId).not.toBe(first.body.requestId);
  });

  it('are split into shorter messages when a message would be longer than the broker takes', () => {
    const long = 'x'.repeat(MESSAGE_CHARACTERS / 8);
    const traffic = Array.from({ length: 12 }, (_, index) => requestEvents(`r${index}`, { errorMessage: long })).flat();
    const messages = messagesOf(traffic, topics).get(topics.traffic)!;
    expect(messages.length).toBeGreaterThan(1);
    for (const message of messages) expect(message.value.length).toBeLessThanOrEqual(MESSAGE_CHARACTERS);
    expect(eventsOf(messages)).toEqual(traffic);
    const perMessage = messages.map((message) => decodeLogMessage(message.value).events.length);
    expect(perMessage.every((count) => count % 2 === 0)).toBe(true);
  });
});
