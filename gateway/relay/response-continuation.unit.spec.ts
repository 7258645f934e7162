import { describe, expect, it } from 'vitest';
import type { StoredResponseDocument } from '../../projector/read-models/responses/evolve.ts';
import type { TokenDocument } from '../../projector/read-models/tokens/evolve.ts';
import type { RelayDependencies } from './relay-handler.ts';
import { continueStoredConversation } from './response-continuation.ts';
import type { ResponseState } from './response-state.ts';

function turn(usage: StoredResponseDocument['usage']): StoredResponseDocument {
  return {
    channelId: 'c1',
    channelType: 'openai',
    native: true,
    inputItems: [],
    outputItems: [],
    usage,
  } as unknown as StoredResponseDocument;
}

async function added(bytes: number, usage: StoredResponseDocument['usage']): Promise<number> {
  const responses = { chain: async () => ({ turns: [turn(null), turn(usage)], bytes }) } as unknown as ResponseState;
  const dependencies = { responses } as RelayDependencies;
  const token = { userId: 'u1' } as TokenDocument;
  return continueStoredConversation({ previous_response_id: 'resp_1', input: 'hi' }, 10, token, dependencies);
}

describe('continueStoredConversation', () => {
  it('answers the earlier turns as prompt tokens: their size ÷ 4 or the last turn’s recorded usage, the larger', async () => {
    expect(await added(40_000, null)).toBe(10_000);
    expect(await added(40_000, { inputTokens: 2_000, outputTokens: 500 })).toBe(10_000);
    // A native channel keeps turns the gateway no longer has (a deleted one): its recorded usage counts them.
    expect(await added(4_000, { inputTokens: 90_000, outputTokens: 500 })).toBe(90_500);
  });

  it('adds nothing to a request that continues nothing', async () => {
    const dependencies = { responses: {} } as RelayDependencies;
    expect(await continueStoredConversation({ input: 'hi' }, 10, {} as TokenDocument, dependencies)).toBe(0);
  });
});
