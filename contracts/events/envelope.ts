/**
 * @module contracts/events/envelope
 * Every event shares one envelope: a UUIDv7 id (time-ordered, so logs sort by it), a past-tense type,
 * the version of that type's body, and when it happened. A published version is never edited; a change
 * adds a version and an upcaster (see `upcast.ts`).
 */
import { z } from 'zod';

export const eventIdSchema = z.uuid();

export function envelope<Type extends string, Version extends number, Body extends z.ZodType>(
  type: Type,
  version: Version,
  body: Body,
) {
  return z.object({
    eventId: eventIdSchema,
    type: z.literal(type),
    version: z.literal(version),
    occurredAt: z.iso.datetime(),
    body,
  });
}

/** The two streams: entities are kept forever, traffic for a retention period. */
export type EventStream = 'entity' | 'traffic';
