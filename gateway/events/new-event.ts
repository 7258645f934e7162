/**
 * @module gateway/events/new-event
 * Builds an event envelope at the current version of its type, with a time-ordered UUIDv7 id.
 */
import type { EventOfType, GatewayEventType } from '../../contracts/events/index.ts';
import { timeOrderedId } from './time-ordered-id.ts';

const currentVersion: { [Type in GatewayEventType]: EventOfType<Type>['version'] } = {
  'user.registered': 1,
  'user.updated': 1,
  'session.ended': 1,
  'token.issued': 1,
  'token.updated': 1,
  'token.revoked': 1,
  'channel.configured': 1,
  'channel.removed': 1,
  'request.completed': 2,
  'usage.recorded': 2,
  'response.stored': 1,
  'response.deleted': 1,
  'payload.captured': 1,
  'payloads.deleted': 1,
};

/** @param now when it occurred: a time, or its ISO text (the relay prints one for both its events) */
export function newEvent<Type extends GatewayEventType>(
  type: Type,
  body: EventOfType<Type>['body'],
  now: Date | string = new Date(),
): EventOfType<Type> {
  return {
    eventId: timeOrderedId(),
    type,
    version: currentVersion[type],
    occurredAt: typeof now === 'string' ? now : now.toISOString(),
    body,
  } as EventOfType<Type>;
}
