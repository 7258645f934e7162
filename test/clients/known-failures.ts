/**
 * Cells that fail for a reason the gateway does not handle yet, with that reason. Their tests expect
 * the failure (and fail once the cell passes, so that this list is kept true); the matrix shows them
 * as failing, with what the run printed.
 */
import type { Check } from './cells.ts';
import type { ClientName } from './client-definitions.ts';
import type { ChannelKind } from './client-gateway.ts';

/**
 * Codex (0.171, its default model) offers its tools in an `additional_tools` input item, and reads
 * files through `exec`, a custom (freeform) tool in a namespace. A converted channel reads neither:
 * the item is dropped as a built-in tool's, so the model is offered no tool at all.
 */
const codexTools =
  'Codex sends its tools in an additional_tools input item, its read tool a custom (freeform) tool; converted channels drop both';

const known: Record<string, string> = Object.fromEntries(
  (['anthropic', 'openai', 'gemini', 'bedrock', 'azure'] as const).map((kind) => [`codex ${kind} tool`, codexTools]),
);

export function knownFailure(client: ClientName, kind: ChannelKind, check: Check): string | undefined {
  return known[`${client} ${kind} ${check}`];
}
