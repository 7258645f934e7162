/**
 * @module contracts/events/upcast
 * Reading a stored event: older versions are lifted to the current one here, at read time, so stored
 * events are never rewritten. A type's next version adds its upcaster to the table.
 */
import { type GatewayEvent, gatewayEventSchema } from './index.ts';
import { certainlyValidTraffic } from './traffic-check.ts';

type Upcaster = (event: Record<string, unknown>) => Record<string, unknown>;

/** `type@version` → function lifting that version by one step. */
const upcasters: Record<string, Upcaster> = {
  // Usage recorded before prices existed: no cost was computed, and none is guessed now.
  'usage.recorded@1': (event) => ({
    ...event,
    version: 2,
    body: { ...(event['body'] as Record<string, unknown>), costNanoUsd: null, price: null },
  }),
  // A request recorded when its usage was a second event: the same body, with no usage of its own.
  'request.completed@1': (event) => ({ ...event, version: 2 }),
};

/** The types that have an upcaster: every other event is current as read, with no key to build. */
const upcastTypes = new Set(Object.keys(upcasters).map((key) => key.slice(0, key.lastIndexOf('@'))));

function lift(raw: unknown): Record<string, unknown> {
  let event = raw as Record<string, unknown>;
  if (!upcastTypes.has(event['type'] as string)) return event;
  for (let step = 0; step < 16; step++) {
    const liftOnce = upcasters[`${String(event['type'])}@${String(event['version'])}`];
    if (!liftOnce) break;
    event = liftOnce(event);
  }
  return event;
}

/**
 * An event from outside this process (Kafka, another node's outbox): lifted, then checked in full, by
 * hand for the two traffic events every request writes (traffic-check.ts), by the schema otherwise.
 */
export function upcast(raw: unknown): GatewayEvent {
  const lifted = lift(raw);
  return certainlyValidTraffic(lifted) ? lifted : gatewayEventSchema.parse(lifted);
}

/**
 * An event this process's own typed code wrote to its local log moments ago: lifted but not re-checked.
 * Re-validating it cost a tenth of the embedded gateway's CPU in the profile; the contract tests keep
 * the writers honest.
 */
export function upcastTrusted(raw: unknown): GatewayEvent {
  return lift(raw) as GatewayEvent;
}
