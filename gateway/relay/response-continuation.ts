/**
 * @module gateway/relay/response-continuation
 * Before a `/v1/responses` request is routed: the stored turns its `previous_response_id` continues,
 * found among the key's account's own responses (any other id is a 404, whoever holds it) and
 * attached to the body for the channel each attempt is routed to (providers/responses/continuation.ts).
 * The earlier turns are prompt the upstream bills, so the request's holds count them: the larger of
 * their size (4 bytes a token, as the client's body is counted) and the last turn's recorded usage
 * (its input and output: the whole conversation as the upstream counted it, which a native channel
 * also bills when it keeps the turns itself). The gateway's compaction items among them and in the
 * request's input are opened here too (response-compaction.ts).
 */
import type { TokenDocument } from '../../projector/read-models/tokens/evolve.ts';
import { continueFrom } from '../providers/responses/continuation.ts';
import type { RelayDependencies } from './relay-handler.ts';
import { openCompactions } from './response-compaction.ts';

export async function continueStoredConversation(
  body: Record<string, unknown>,
  bodyBytes: number,
  token: TokenDocument,
  dependencies: RelayDependencies,
): Promise<number> {
  const previous = body['previous_response_id'];
  // Without a store the request reader refuses the id, as a gateway that keeps nothing must.
  if (typeof previous !== 'string' || previous === '' || !dependencies.responses) {
    openCompactions(body, [], token.userId, dependencies.compactionKey);
    return 0;
  }
  const { turns, bytes } = await dependencies.responses.chain(
    previous,
    token.userId,
    'previous_response_id',
    bodyBytes,
  );
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
  const earlier = turns.flatMap(({ inputItems, outputItems }) => [inputItems, outputItems]);
  openCompactions(body, earlier, token.userId, dependencies.compactionKey);
  const usage = turns.at(-1)?.usage;
  return Math.max(Math.ceil(bytes / 4), usage ? usage.inputTokens + usage.outputTokens : 0);
}
