/**
 * @module gateway/providers/responses/continuation
 * `previous_response_id` for the channel a request is routed to. The relay finds the earlier turns
 * (the stored chain, oldest first) before routing and attaches them to the client's body here; each
 * attempt then asks for the body its channel receives, which depends on the channel:
 *
 * - a native Responses channel that made the previous turn itself keeps that turn upstream: it gets
 *   the body as sent, `previous_response_id` included;
 * - any other channel gets the conversation expanded into `input`: each earlier turn's input items
 *   and output items, then this turn's. A native channel gets no `previous_response_id` (the upstream
 *   does not know the id); a converted one keeps it in the body, which only the reply echoes.
 *
 * A continuation whose previous turn was made natively may start with that turn alone
 * (`continueFromLast`): the turns before it are read only for an attempt that expands them
 * (`loadEarlierTurns`, awaited before the attempt is built), so the native path reads no chain.
 *
 * Reasoning items carry a provider's signature or encrypted content, which only that provider
 * accepts: they go back to the channel that made them, or to any Anthropic channel for an Anthropic
 * signature (thinking signatures are checked by Anthropic, not by a key), and are left out elsewhere.
 */
import type { ChannelType } from '../../../contracts/channel-type.ts';
import type { RelayInput } from '../provider.ts';

export interface EarlierTurn {
  channelId: string;
  channelType: ChannelType;
  native: boolean;
  inputItems: readonly Record<string, unknown>[];
  outputItems: readonly Record<string, unknown>[];
}

const chains = new WeakMap<object, readonly EarlierTurn[]>();
/** bodies that hold their last turn only, with what reads the rest (once) */
interface Loader {
  load: () => Promise<readonly EarlierTurn[]>;
  loading?: Promise<void>;
  done?: boolean;
}
const loaders = new WeakMap<object, Loader>();
const expansions = new WeakMap<object, Map<string, Record<string, unknown>>>();
const expanded = new WeakSet<object>();

/** Attaches the earlier turns (oldest first) to the client's body, for the attempts that follow. */
export function continueFrom(body: Record<string, unknown>, turns: readonly EarlierTurn[]): void {
  chains.set(body, turns);
}

/**
 * Attaches the previous turn alone; `load` reads every earlier turn (oldest first, the previous one
 * last) when an attempt needs them expanded.
 */
export function continueFromLast(
  body: Record<string, unknown>,
  last: EarlierTurn,
  load: () => Promise<readonly EarlierTurn[]>,
): void {
  chains.set(body, [last]);
  loaders.set(body, { load });
}

/** Whether an attempt relays the body as sent: a native one on the channel that made the previous turn. */
function keepsUpstream(input: RelayInput, native: boolean, turns: readonly EarlierTurn[]): boolean {
  const previous = turns.at(-1)!;
  return native && previous.native && previous.channelId === input.route.channel.channelId;
}

/**
 * Before an attempt on `input.route`: reads the earlier turns if the attempt expands them and they
 * were not read yet (the same read for every attempt that needs them).
 */
export function loadEarlierTurns(input: RelayInput, native: boolean): Promise<void> | null {
  const loader = loaders.get(input.body);
  const turns = chains.get(input.body);
  if (!loader || !turns || keepsUpstream(input, native, turns)) return null;
  loader.loading ??= loader.load().then((all) => {
    chains.set(input.body, all);
    loader.done = true;
  });
  return loader.loading;
}

/** True for a body whose earlier turns are already in its `input` (the request reader then accepts its id). */
export function isExpanded(body: object): boolean {
  return expanded.has(body);
}

/** `to`, a rewritten copy of `from`, holds the earlier turns if `from` did. */
export function carryExpansion(from: object, to: object): void {
  if (expanded.has(from)) expanded.add(to);
}

/** This turn's input as a list of items: a string is one user message. */
export function inputItemsOf(input: unknown): Record<string, unknown>[] {
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: input }];
  return Array.isArray(input) ? (input as Record<string, unknown>[]) : [];
}

/**
 * The item types a converted channel's request reader takes; native channels take every type. A
 * compaction item stands for the turns before it: the gateway's own becomes its summary again
 * (compaction.ts), another's is dropped by the reader with a warning.
 */
const convertedTypes = new Set([
  'message',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'additional_tools',
  'reasoning',
  'compaction',
]);

function keeps(
  item: Record<string, unknown>,
  turn: EarlierTurn,
  channelId: string,
  type: ChannelType,
  native: boolean,
) {
  const itemType = typeof item['type'] === 'string' ? item['type'] : 'message';
  if (!native && !convertedTypes.has(itemType)) return false;
  if (itemType !== 'reasoning') return true;
  return turn.channelId === channelId || (turn.channelType === 'anthropic' && type === 'anthropic');
}

/**
 * A compaction stands for everything before it: the earlier items from the last compaction item on.
 * A trigger asked for a compaction that was made: it is not asked again.
 */
function sinceCompaction(items: Record<string, unknown>[]): Record<string, unknown>[] {
  const kept = items.filter((item) => item['type'] !== 'compaction_trigger');
  const last = kept.findLastIndex((item) => item['type'] === 'compaction');
  return last > 0 ? kept.slice(last) : kept;
}

function expand(input: RelayInput, turns: readonly EarlierTurn[], native: boolean): Record<string, unknown> {
  const { channelId, type } = input.route.channel;
  const items = sinceCompaction(
    turns.flatMap((turn) =>
      [...turn.inputItems, ...turn.outputItems].filter((item) => keeps(item, turn, channelId, type, native)),
    ),
  );
  const body: Record<string, unknown> = { ...input.body, input: [...items, ...inputItemsOf(input.body['input'])] };
  if (native) delete body['previous_response_id'];
  else expanded.add(body);
  return body;
}

/** The input an attempt on `input.route` relays: the body as sent, or with the conversation expanded. */
export function continuedInput(input: RelayInput, native: boolean): RelayInput {
  const turns = chains.get(input.body);
  if (!turns || turns.length === 0) return input;
  const channelId = input.route.channel.channelId;
  if (keepsUpstream(input, native, turns)) return input;
  const loader = loaders.get(input.body);
  // Expanding the last turn alone would drop the rest of the conversation without a word.
  if (loader && !loader.done) throw new Error('The earlier turns of previous_response_id were not read.');
  // One body per channel, the same object for every call of an attempt: converted-request.ts caches by it.
  let perChannel = expansions.get(input.body);
  if (!perChannel) {
    perChannel = new Map();
    expansions.set(input.body, perChannel);
  }
  let body = perChannel.get(channelId);
  if (!body) {
    body = expand(input, turns, native);
    perChannel.set(channelId, body);
  }
  return { ...input, body };
}
