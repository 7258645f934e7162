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
 *
 * A previous turn made natively, with its usage recorded, is all `/v1/responses` reads up front: the
 * channel that made it keeps the conversation and gets the id alone, and the recorded usage sizes
 * the holds. The turns before it are read, bounded and opened only when an attempt goes elsewhere
 * (`beforeResponsesAttempt`). The compaction and token-count endpoints expand on every channel kind
 * and read the whole chain at once.
 *
 * A request that says `store: true` while the account's stored responses are at their limit is
 * refused here, before any upstream call; without `store` the reply is answered and not kept
 * (response-keeper.ts).
 */
import type { TokenDocument } from '../../projector/read-models/tokens/evolve.ts';
import type { RelayInput } from '../providers/provider.ts';
import {
  continueFrom,
  continueFromLast,
  type EarlierTurn,
  loadEarlierTurns,
} from '../providers/responses/continuation.ts';
import { relaysNatively } from '../providers/responses/responses-providers.ts';
import type { RelayDependencies } from './relay-handler.ts';
import { openCompactions } from './response-compaction.ts';
import type { StoredResponseDocument } from './response-state.ts';

const asTurn = ({ channelId, channelType, native, inputItems, outputItems }: StoredResponseDocument): EarlierTurn => ({
  channelId,
  channelType,
  native,
  inputItems,
  outputItems,
});

const itemsOf = (turns: readonly StoredResponseDocument[]) =>
  turns.flatMap(({ inputItems, outputItems }) => [inputItems, outputItems]);

function heldTokens(bytes: number, last: StoredResponseDocument | undefined): number {
  const usage = last?.usage;
  return Math.max(Math.ceil(bytes / 4), usage ? usage.inputTokens + usage.outputTokens : 0);
}

async function continueConversation(
  body: Record<string, unknown>,
  bodyBytes: number,
  token: TokenDocument,
  dependencies: RelayDependencies,
  lazily: boolean,
): Promise<number> {
  const state = dependencies.responses;
  if (state && body['store'] === true) await state.checkRoom(token.userId, bodyBytes);
  const previous = body['previous_response_id'];
  // Without a store the request reader refuses the id, as a gateway that keeps nothing must.
  if (typeof previous !== 'string' || previous === '' || !state) {
    openCompactions(body, [], token.userId, dependencies.compactionKey);
    return 0;
  }
  const param = 'previous_response_id';
  const { userId } = token;
  const key = dependencies.compactionKey;
  const last = lazily ? await state.last(previous, userId, param, bodyBytes) : undefined;
  if (last?.turn.native && last.turn.usage) {
    continueFromLast(body, asTurn(last.turn), async () => {
      const { turns } = await state.chain(previous, userId, param, bodyBytes, last);
      openCompactions(body, itemsOf(turns), userId, key);
      return turns.map(asTurn);
    });
    openCompactions(body, [], userId, key);
    return heldTokens(last.bytes, last.turn);
  }
  const { turns, bytes } = await state.chain(previous, userId, param, bodyBytes, last);
  continueFrom(body, turns.map(asTurn));
  openCompactions(body, itemsOf(turns), userId, key);
  return heldTokens(bytes, turns.at(-1));
}

/** `/v1/responses`: the previous turn alone when it was made natively (see the module's comment). */
export function continueStoredConversation(
  body: Record<string, unknown>,
  bodyBytes: number,
  token: TokenDocument,
  dependencies: RelayDependencies,
): Promise<number> {
  return continueConversation(body, bodyBytes, token, dependencies, true);
}

/** The compaction and token-count endpoints: the whole chain, read before routing. */
export function continueWholeConversation(
  body: Record<string, unknown>,
  bodyBytes: number,
  token: TokenDocument,
  dependencies: RelayDependencies,
): Promise<number> {
  return continueConversation(body, bodyBytes, token, dependencies, false);
}

/** Before each `/v1/responses` attempt: the earlier turns, read if this attempt expands them. */
export function beforeResponsesAttempt(input: RelayInput): Promise<void> | null {
  return loadEarlierTurns(input, relaysNatively(input.route.channel.type, input));
}
