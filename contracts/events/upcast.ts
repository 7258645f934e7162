/**
 * @module contracts/events/upcast
 * Reading a stored event: older versions are lifted to the current one here, at read time, so stored
 * events are never rewritten. Every type is at version 1 today; a v2 adds its upcaster to the table.
 */
import { type GatewayEvent, gatewayEventSchema } from './index.ts';

type Upcaster = (event: Record<string, unknown>) => Record<string, unknown>;

/** `type@version` → function lifting that version by one step. */
const upcasters: Record<string, Upcaster> = {};

export function upcast(raw: unknown): GatewayEvent {
  let event = raw as Record<string, unknown>;
  for (let step = 0; step < 16; step++) {
    const lift = upcasters[`${String(event['type'])}@${String(event['version'])}`];
    if (!lift) break;
    event = lift(event);
  }
  return gatewayEventSchema.parse(event);
}
