/**
 * The embedded rebuild drops every projection and replays the log: lookups and totals come back
 * identical, and rebuilding twice changes nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newEvent } from '../../gateway/events/new-event.ts';
import { createEmbeddedStores } from './index.ts';
import { rebuildEmbedded } from './rebuild.ts';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

const range = {
  from: new Date(Date.now() - 3_600_000).toISOString(),
  to: new Date(Date.now() + 3_600_000).toISOString(),
  userId: 'u1',
};

async function snapshot(directory: string) {
  const stores = await createEmbeddedStores(directory);
  try {
    return {
      token: stores.lookups.tokenById('t1'),
      usage: stores.lookups.tokenUsage('t1'),
      overview: await stores.usage.overview(range),
    };
  } finally {
    await stores.close();
  }
}

describe('rebuildEmbedded', () => {
  it('rebuilds identical projections from the log, however often it runs', async () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'rebuild-'));
    directories.push(directory);
    const stores = await createEmbeddedStores(directory);
    const startedAt = new Date().toISOString();
    await stores.events.append([
      newEvent('user.registered', { userId: 'u1', email: 'a@example.com', name: 'a', passwordHash: 'x', role: 'user' }),
      newEvent('token.issued', {
        tokenId: 't1',
        userId: 'u1',
        name: 'k',
        keyHash: 'h',
        keyHint: 'sk-a…b',
        expiresAt: null,
        quota: 1000,
        models: null,
      }),
      ...Array.from({ length: 30 }, (_, index) => [
        newEvent('request.completed', {
          requestId: `r${index}`,
          userId: 'u1',
          tokenId: 't1',
          endpoint: 'chat.completions',
          modelRequested: 'm',
          modelServed: 'm-1',
          channelId: 'c',
          stream: false,
          status: index % 10 === 0 ? 502 : 200,
          errorType: null,
          errorMessage: null,
          startedAt,
          latencyMs: 5,
          firstTokenMs: 4,
          clientAborted: false,
        }),
        newEvent('usage.recorded', {
          requestId: `r${index}`,
          userId: 'u1',
          tokenId: 't1',
          channelId: 'c',
          model: 'm',
          startedAt,
          promptTokens: 10,
          completionTokens: index,
          cachedTokens: 0,
          cacheWriteTokens: 0,
          reasoningTokens: 0,
          source: 'upstream',
          // Every third request unpriced; the rest at a price the rebuild must not recompute.
          costNanoUsd: index % 3 === 0 ? null : 1000 + index,
          price:
            index % 3 === 0
              ? null
              : {
                  source: 'config',
                  model: 'm',
                  inputPerMillion: 1,
                  outputPerMillion: 2,
                  cacheReadPerMillion: 1,
                  cacheWritePerMillion: 1,
                  perRequest: 0,
                },
        }),
      ]).flat(),
      newEvent('token.updated', { tokenId: 't1', userId: 'u1', name: 'renamed' }),
    ]);
    await stores.close();
    const original = await snapshot(directory);
    expect(original.overview.totals).toMatchObject({
      calls: 30,
      errors: 3,
      prompt_tokens: 300,
      completion_tokens: 435,
      // 20 priced requests: 1000 + index nano-dollars each; 10 unpriced
      cost_usd: (20 * 1000 + (435 - (0 + 3 + 6 + 9 + 12 + 15 + 18 + 21 + 24 + 27))) / 1e9,
      unpriced_requests: 10,
    });
    const progress: number[] = [];
    expect(rebuildEmbedded(directory, (applied) => progress.push(applied))).toBe(63);
    expect(progress.at(-1)).toBe(63);
    expect(await snapshot(directory)).toEqual(original);
    rebuildEmbedded(directory, () => {});
    expect(await snapshot(directory)).toEqual(original);
  });
});
