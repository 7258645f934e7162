/**
 * @module gateway/commands/command-context
 * What every command needs: the stores to read and append to, the derived keys, and a clock. Commands
 * append their events and wait until this node's read models show them (read your writes).
 */
import type { GatewayEvent } from '../../contracts/events/index.ts';
import type { Stores } from '../../stores/ports.ts';
import type { DerivedKeys } from '../security/server-secret.ts';

export interface CommandContext {
  stores: Stores;
  keys: DerivedKeys;
  now: () => Date;
}

export async function commit(context: CommandContext, ...events: GatewayEvent[]): Promise<void> {
  await context.stores.events.append(events);
  await context.stores.sync.caughtUp(events);
}
