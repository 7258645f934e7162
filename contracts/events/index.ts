/**
 * @module contracts/events
 * The closed union of every event the system publishes, at its current version (older versions are
 * lifted to it by upcast.ts), and the stream each type belongs to.
 */
import { z } from 'zod';
import {
  channelConfiguredV1,
  channelRemovedV1,
  sessionEndedV1,
  tokenIssuedV1,
  tokenRevokedV1,
  tokenUpdatedV1,
  userRegisteredV1,
  userUpdatedV1,
} from './entity-events.ts';
import type { EventStream } from './envelope.ts';
import { payloadCapturedV1, payloadsDeletedV1 } from './payload-events.ts';
import { responseDeletedV1, responseStoredV1 } from './response-events.ts';
import { requestCompletedV2, usageRecordedV2 } from './traffic-events.ts';

export * from './entity-events.ts';
export * from './envelope.ts';
export * from './payload-events.ts';
export * from './response-events.ts';
export * from './traffic-events.ts';
export * from './traffic-facts.ts';

export const gatewayEventSchema = z.discriminatedUnion('type', [
  userRegisteredV1,
  userUpdatedV1,
  sessionEndedV1,
  tokenIssuedV1,
  tokenUpdatedV1,
  tokenRevokedV1,
  channelConfiguredV1,
  channelRemovedV1,
  requestCompletedV2,
  usageRecordedV2,
  responseStoredV1,
  responseDeletedV1,
  payloadCapturedV1,
  payloadsDeletedV1,
]);

export type GatewayEvent = z.infer<typeof gatewayEventSchema>;
export type GatewayEventType = GatewayEvent['type'];
export type EventOfType<Type extends GatewayEventType> = Extract<GatewayEvent, { type: Type }>;

/**
 * The event types of the traffic stream; every other type is an entity event. Stored responses and
 * captured payloads are traffic: kept for a retention like the requests they came from, not forever.
 */
export const trafficTypes: ReadonlySet<GatewayEventType> = new Set([
  'request.completed',
  'usage.recorded',
  'response.stored',
  'response.deleted',
  'payload.captured',
  'payloads.deleted',
]);

export function streamOf(type: GatewayEventType): EventStream {
  return trafficTypes.has(type) ? 'traffic' : 'entity';
}

/**
 * The ordering key: one entity's events stay in order (Kafka partitions by it). Traffic is keyed by
 * request so a request's events (two before `request.completed` version 2) land together.
 */
export function partitionKeyOf(event: GatewayEvent): string {
  switch (event.type) {
    case 'user.registered':
    case 'user.updated':
    case 'session.ended':
      return event.body.userId;
    case 'token.issued':
    case 'token.updated':
    case 'token.revoked':
      return event.body.tokenId;
    case 'channel.configured':
    case 'channel.removed':
      return event.body.channelId;
    case 'request.completed':
    case 'usage.recorded':
      return event.body.requestId;
    case 'response.stored':
    case 'response.deleted':
      return event.body.responseId;
    case 'payload.captured':
      return event.body.requestId;
    case 'payloads.deleted':
      return event.body.userId;
  }
}
