/**
 * Routing: channels that serve a model, by priority tier, weighted random inside a tier, with the
 * channel's model mapping; rebuilt when channels change.
 */
import { describe, expect, it } from 'vitest';
import type { ChannelType } from '../../contracts/events/index.ts';
import type { ChannelDocument } from '../../projector/read-models/channels/evolve.ts';
import type { LookupReadModel, TokenUsage } from '../../stores/ports.ts';
import { encryptSecret } from '../security/upstream-key-cipher.ts';
import { ChannelRouter, weightedShuffle } from './channel-router.ts';

const key = Buffer.alloc(32, 7);

/** A deterministic generator (mulberry32), so shuffles are reproducible. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

/** Returns the given values in turn. */
function sequence(...values: number[]): () => number {
  let index = 0;
  return () => values[index++ % values.length]!;
}

class FakeLookups implements LookupReadModel {
  documents: ChannelDocument[] = [];
  readonly #listeners: Array<() => void> = [];
  tokenByKeyHash = () => undefined;
  tokenById = () => undefined;
  tokensOfUser = () => [];
  tokenUsage = (): TokenUsage => ({ usedTokens: 0, lastUsedAt: null });
  spend = () => undefined;
  userByEmail = () => undefined;
  userById = () => undefined;
  users = () => [];
  ensureKeyHash = async () => {};
  ensureUser = async () => {};
  ensureEmail = async () => {};
  ensureToken = async () => {};
  refreshUsers = async () => {};
  channels(): ChannelDocument[] {
    return this.documents;
  }
  onChannelsChanged(listener: () => void): void {
    this.#listeners.push(listener);
  }
  change(documents: ChannelDocument[]): void {
    this.documents = documents;
    for (const listener of this.#listeners) listener();
  }
}

function channel(channelId: string, overrides: Partial<ChannelDocument> = {}): ChannelDocument {
  return {
    channelId,
    name: `channel ${channelId}`,
    type: 'openai',
    baseUrl: 'https://api.example.com/v1/',
    apiKeyCiphertext: encryptSecret(`sk-upstream-${channelId}`, key),
    models: ['gpt-4o'],
    modelMapping: {},
    priority: 0,
    weight: 1,
    thinkingToContent: false,
    enabled: true,
    updatedAt: '2025-01-01T00:00:00.000Z',
    ...overrides,
  };
}

const ids = (routes: { channel: { channelId: string } }[]) => routes.map((route) => route.channel.channelId);
const openai: ChannelType[] = ['openai'];
const both: ChannelType[] = ['openai', 'anthropic'];

describe('weightedShuffle', () => {
  const items = [
    { id: 'a', weight: 1 },
    { id: 'b', weight: 2 },
    { id: 'c', weight: 1 },
  ];

  it('returns every item exactly once and leaves the input alone', () => {
    const copy = structuredClone(items);
    const result = weightedShuffle(items, seeded(42));
    expect(result.map((item) => item.id).sort()).toEqual(['a', 'b', 'c']);
    expect(items).toEqual(copy);
  });

  it('picks by cumulative weight', () => {
    // total 4: [0,1) → a, [1,3) → b, [3,4) → c
    expect(weightedShuffle(items, sequence(0.1, 0)).map((item) => item.id)).toEqual(['a', 'b', 'c']);
    expect(weightedShuffle(items, sequence(0.5, 0.99)).map((item) => item.id)).toEqual(['b', 'c', 'a']);
    expect(weightedShuffle(items, sequence(0.8, 0.2)).map((item) => item.id)).toEqual(['c', 'a', 'b']);
  });

  it('is reproducible with the same seed', () => {
    const many = Array.from({ length: 10 }, (_, index) => ({ id: index, weight: index + 1 }));
    expect(weightedShuffle(many, seeded(7))).toEqual(weightedShuffle(many, seeded(7)));
  });

  it('never picks a weight-0 item before a weighted one, even at random() close to 1', () => {
    const standby = [
      { id: 'zero', weight: 0 },
      { id: 'one', weight: 1 },
      { id: 'two', weight: 2 },
    ];
    for (const value of [0, 0.5, 0.999999]) {
      expect(weightedShuffle(standby, sequence(value)).at(-1)?.id).toBe('zero');
    }
  });

  it('gives weights 3:1 about 75 % / 25 % first places over 10 000 draws; weight 0 always last', () => {
    const pool = [
      { id: 'heavy', weight: 3 },
      { id: 'light', weight: 1 },
      { id: 'standby', weight: 0 },
    ];
    let heavyFirst = 0;
    for (let draw = 0; draw < 10_000; draw++) {
      const order = weightedShuffle(pool, Math.random);
      if (order[0]!.id === 'heavy') heavyFirst++;
      expect(order[2]!.id).toBe('standby');
    }
    expect(heavyFirst / 10_000).toBeGreaterThan(0.72);
    expect(heavyFirst / 10_000).toBeLessThan(0.78);
  });

  it('keeps the given order when every weight is 0', () => {
    const zeros = [
      { id: 'x', weight: 0 },
      { id: 'y', weight: 0 },
    ];
    expect(weightedShuffle(zeros, seeded(1)).map((item) => item.id)).toEqual(['x', 'y']);
  });
});

describe('ChannelRouter', () => {
  it('routes by model with the decrypted key and a trimmed base URL', () => {
    const lookups = new FakeLookups();
    lookups.documents = [channel('a'), channel('b', { models: ['claude-sonnet-4-5'], type: 'anthropic' })];
    const router = new ChannelRouter(lookups, key);
    const [route, ...rest] = router.routes('gpt-4o', openai);
    expect(rest).toEqual([]);
    expect(route?.channel).toMatchObject({
      channelId: 'a',
      apiKey: 'sk-upstream-a',
      baseUrl: 'https://api.example.com/v1',
    });
    expect(route?.upstreamModel).toBe('gpt-4o');
    expect(router.routes('unknown-model', both)).toEqual([]);
    expect(router.models()).toEqual(['claude-sonnet-4-5', 'gpt-4o']);
  });

  it("guards the connections of the console's channels, not the config file's, unless private addresses are allowed", () => {
    const lookups = new FakeLookups();
    lookups.documents = [
      channel('entered', { source: 'console' }),
      channel('older'),
      channel('configured', { source: 'config' }),
    ];
    const guarded = (router: ChannelRouter) =>
      Object.fromEntries(
        router.routes('gpt-4o', openai).map((route) => [route.channel.channelId, route.channel.publicOnly]),
      );
    expect(guarded(new ChannelRouter(lookups, key))).toEqual({ entered: true, older: true, configured: false });
    expect(guarded(new ChannelRouter(lookups, key, { allowPrivateUpstreams: true }))).toEqual({
      entered: false,
      older: false,
      configured: false,
    });
  });

  it('skips disabled channels', () => {
    const lookups = new FakeLookups();
    lookups.documents = [channel('on'), channel('off', { enabled: false, models: ['gpt-4o', 'only-off'] })];
    const router = new ChannelRouter(lookups, key);
    expect(ids(router.routes('gpt-4o', openai))).toEqual(['on']);
    expect(router.routes('only-off', openai)).toEqual([]);
    expect(router.models()).not.toContain('only-off');
  });

  it('keeps only the accepted channel types', () => {
    const lookups = new FakeLookups();
    lookups.documents = [channel('o'), channel('a', { type: 'anthropic' })];
    const router = new ChannelRouter(lookups, key);
    expect(ids(router.routes('gpt-4o', ['anthropic']))).toEqual(['a']);
    expect(ids(router.routes('gpt-4o', openai))).toEqual(['o']);
    expect(ids(router.routes('gpt-4o', both)).sort()).toEqual(['a', 'o']);
    expect(router.routes('gpt-4o', [])).toEqual([]);
  });

  it('tries the higher priority tier first, then lower tiers as fallbacks', () => {
    const lookups = new FakeLookups();
    lookups.documents = [
      channel('low', { priority: -1, weight: 100 }),
      channel('high-1', { priority: 10 }),
      channel('mid', { priority: 5, weight: 100 }),
      channel('high-2', { priority: 10 }),
    ];
    const router = new ChannelRouter(lookups, key);
    for (let seed = 0; seed < 20; seed++) {
      const order = ids(router.routes('gpt-4o', openai, seeded(seed)));
      expect(order.slice(0, 2).sort()).toEqual(['high-1', 'high-2']);
      expect(order.slice(2)).toEqual(['mid', 'low']);
    }
  });

  it('shuffles inside a tier by weight', () => {
    const lookups = new FakeLookups();
    lookups.documents = [channel('a', { weight: 1 }), channel('b', { weight: 3 })];
    const router = new ChannelRouter(lookups, key);
    expect(ids(router.routes('gpt-4o', openai, sequence(0.1, 0)))).toEqual(['a', 'b']);
    expect(ids(router.routes('gpt-4o', openai, sequence(0.5, 0)))).toEqual(['b', 'a']);
  });

  it('applies the model mapping of each channel', () => {
    const lookups = new FakeLookups();
    lookups.documents = [
      channel('mapped', { priority: 1, modelMapping: { 'gpt-4o': 'gpt-4o-2024-11-20' } }),
      channel('plain', { modelMapping: { other: 'x' } }),
    ];
    const routes = new ChannelRouter(lookups, key).routes('gpt-4o', openai);
    expect(routes.map((route) => [route.channel.channelId, route.upstreamModel])).toEqual([
      ['mapped', 'gpt-4o-2024-11-20'],
      ['plain', 'gpt-4o'],
    ]);
  });

  it('rebuilds when channels change', () => {
    const lookups = new FakeLookups();
    lookups.documents = [channel('a')];
    const router = new ChannelRouter(lookups, key);
    expect(ids(router.routes('gpt-4o', openai))).toEqual(['a']);
    lookups.change([channel('a', { enabled: false }), channel('b', { models: ['gpt-4o', 'o3'] })]);
    expect(ids(router.routes('gpt-4o', openai))).toEqual(['b']);
    expect(ids(router.routes('o3', openai))).toEqual(['b']);
    lookups.change([]);
    expect(router.routes('gpt-4o', openai)).toEqual([]);
    expect(router.models()).toEqual([]);
  });
});
