/**
 * Cells that fail for a reason the gateway does not handle yet, with that reason. Their tests expect
 * the failure (and fail once the cell passes, so that this list is kept true); the matrix shows them
 * as failing, with what the run printed.
 */
import type { Check } from './cells.ts';
import type { ClientName } from './client-definitions.ts';
import type { ChannelKind } from './client-gateway.ts';

const known: Record<string, string> = {};

export function knownFailure(client: ClientName, kind: ChannelKind, check: Check): string | undefined {
  return known[`${client} ${kind} ${check}`];
}
