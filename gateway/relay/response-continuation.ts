/**
 * @module gateway/relay/response-continuation
 * Before a `/v1/responses` request is routed: the stored turns its `previous_response_id` continues,
 * found among the key's account's own responses (any other id is a 404, whoever holds it) and
 * attached to the body for the channel each attempt is routed to (providers/responses/continuation.ts).
 */
import type { TokenDocument } from '../../projector/read-models/tokens/evolve.ts';
import { continueFrom } from '../providers/responses/continuation.ts';
import type { RelayDependencies } from './relay-handler.ts';

export async function continueStoredConversation(
  body: Record<string, unknown>,
  token: TokenDocument,
  dependencies: RelayDependencies,
): Promise<void> {
  const previous = body['previous_response_id'];
  // Without a store the request reader refuses the id, as a gateway that keeps nothing must.
  if (typeof previous !== 'string' || previous === '' || !dependencies.responses) return;
  const turns = await dependencies.responses.chain(previous, token.userId, 'previous_response_id');
  continueFrom(
    body,
    turns.map(({ channelId, channelType, native, inputItems, outputItems }) => ({
      channelId,
      channelType,
      native,
      inputItems,
      outputItems,
    })),
  );
}
