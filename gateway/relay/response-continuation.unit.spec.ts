/**
 * The stored conversation a `previous_response_id` continues: what it adds to the request's holds,
 * and what is read of it. A previous turn made natively is all that is read while the attempt goes
 * to the channel that made it (the upstream keeps the rest); the chain is read only for an attempt
 * that expands it.
 */
import { describe, expect, it, vi } from 'vitest';
import type { StoredResponseDocument } from '../../projector/read-models/responses/evolve.ts';
import type { TokenDocument } from '../../projector/read-models/tokens/evolve.ts';
import type { Stores } from '../../stores/ports.ts';
import type { RelayInput } from '../providers/provider.ts';
import { continuedInput } from '../providers/responses/continuation.ts';
import type { Route } from './channel-router.ts';
import type { RelayDependencies } from './relay-handler.ts';
import { beforeResponsesAttempt, continueStoredConversation } from './response-continuation.ts';
import { ResponseState } from './response-state.ts';

const token = { userId: 'u1' } as TokenDocument;

function turn(
  id: string,
  previous: string | null,
  usage: StoredResponseDocument['usage'],
  native = true,
): StoredResponseDocument {
  return {
    responseId: id,
    userId: 'u1',
    previousResponseId: previous,
    channelId: 'c1',
    channelType: 'openai',
    native,
    deleted: false,
    expiresAtMs: Date.now() + 60_000,
    inputItems: [{ type: 'message', role: 'user', content: `asked in ${id}` }],
    outputItems: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `said in ${id}` }] }],
    usage,
  } as unknown as StoredResponseDocument;
}

/** A chain resp_0 … resp_{n-1}, each continuing the one before, on a store whose reads are counted. */
function conversation(turns: number, native = true) {
  const documents = new Map<string, StoredResponseDocument>();
  for (let index = 0; index < turns; index++) {
    const id = `resp_${index}`;
    const usage = { inputTokens: 1_000 * (index + 1), outputTokens: 100 };
    documents.set(id, turn(id, index === 0 ? null : `resp_${index - 1}`, usage, native));
  }
  const find = vi.fn(async (id: string) => documents.get(id) ?? null);
  const stores = { responses: { find, storedBytes: async () => 0 } } as unknown as Stores;
  const responses = new ResponseState(stores);
  return { find, dependencies: { responses } as RelayDependencies, last: `resp_${turns - 1}` };
}

function attempt(body: Record<string, unknown>, channelId: string, responsesApi: boolean): RelayInput {
  const route = { channel: { channelId, type: 'openai', responsesApi } } as unknown as Route;
  return { route, body, stream: false, clientHeaders: {} };
}

describe('continueStoredConversation', () => {
  it('answers the earlier turns as prompt tokens: their size ÷ 4 or the last turn’s recorded usage, the larger', async () => {
    const held = async (usage: StoredResponseDocument['usage'], native = false) => {
      const { dependencies } = conversation(0);
      const documents = [turn('resp_0', null, null, native), turn('resp_1', 'resp_0', usage, native)];
      // Each turn's items weigh the same: the hold follows their bytes when the usage says less.
      documents[0]!.inputItems = [{ text: 'x'.repeat(20_000) }];
      documents[1]!.inputItems = [{ text: 'x'.repeat(20_000) }];
      const stores = {
        responses: { find: async (id: string) => documents.find((d) => d.responseId === id) ?? null },
      } as unknown as Stores;
      const state = new ResponseState(stores);
      const body = { previous_response_id: 'resp_1', input: 'hi' };
      return continueStoredConversation(body, 10, token, { ...dependencies, responses: state });
    };
    expect(await held(null)).toBeGreaterThanOrEqual(10_000);
    expect(await held({ inputTokens: 2_000, outputTokens: 500 })).toBeGreaterThanOrEqual(10_000);
    // A native channel keeps turns the gateway no longer has (a deleted one): its recorded usage counts them.
    expect(await held({ inputTokens: 90_000, outputTokens: 500 }, true)).toBe(90_500);
  });

  it('adds nothing to a request that continues nothing', async () => {
    const dependencies = { responses: {} } as RelayDependencies;
    expect(await continueStoredConversation({ input: 'hi' }, 10, {} as TokenDocument, dependencies)).toBe(0);
  });

  it('reads only the previous turn of a native conversation relayed to the channel that made it', async () => {
    const { find, dependencies, last } = conversation(256);
    const body = { previous_response_id: last, input: 'and now?' };
    const added = await continueStoredConversation(body, 40, token, dependencies);
    // The last turn's recorded usage: the whole conversation as the upstream counted it.
    expect(added).toBe(256_000 + 100);
    const native = attempt(body, 'c1', true);
    expect(beforeResponsesAttempt(native)).toBeNull();
    expect(continuedInput(native, true).body).toBe(body);
    expect(find).toHaveBeenCalledTimes(1);
    expect(find).toHaveBeenCalledWith(last);
  });

  it('reads the whole chain once, for an attempt that expands it', async () => {
    const { find, dependencies, last } = conversation(3);
    const body = { previous_response_id: last, input: 'and now?' };
    await continueStoredConversation(body, 40, token, dependencies);
    const converted = attempt(body, 'c2', false);
    await beforeResponsesAttempt(converted);
    await beforeResponsesAttempt(attempt(body, 'c3', false));
    // Each turn is read once: the previous one before routing, the two before it for the first expansion.
    expect(find).toHaveBeenCalledTimes(3);
    const input = continuedInput(converted, false).body['input'] as Array<{ content: unknown }>;
    expect(input.map((item) => item.content)).toEqual([
      'asked in resp_0',
      [{ type: 'output_text', text: 'said in resp_0' }],
      'asked in resp_1',
      [{ type: 'output_text', text: 'said in resp_1' }],
      'asked in resp_2',
      [{ type: 'output_text', text: 'said in resp_2' }],
      'and now?',
    ]);
  });

  it('reads the whole chain up front when the previous turn was not made natively', async () => {
    const { find, dependencies, last } = conversation(3, false);
    await continueStoredConversation({ previous_response_id: last, input: 'hi' }, 40, token, dependencies);
    expect(find).toHaveBeenCalledTimes(3);
  });
});
