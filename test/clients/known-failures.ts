/**
 * Cells that fail for a reason outside the gateway's reach (what a channel kind cannot express), with
 * that reason. Their tests expect the failure; the matrix shows them as failing, with the reason.
 */
import type { ClientName } from './client-definitions.ts';
import type { ChannelKind } from './client-gateway.ts';
import type { Check } from './cells.ts';

const known: Record<string, string> = {};

export function knownFailure(client: ClientName, kind: ChannelKind, check: Check): string | undefined {
  return known[`${client} ${kind} ${check}`];
}
