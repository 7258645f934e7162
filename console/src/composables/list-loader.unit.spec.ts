// @vitest-environment happy-dom
/**
 * The list loading the keys, channels and users stores share: its states, its changes after a
 * command, and that a slow earlier answer does not replace a newer one (it did in each store).
 */
import { createPinia, setActivePinia } from 'pinia';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useChannelsStore } from '../stores/channels.ts';
import { useTokensStore } from '../stores/tokens.ts';
import { useUsersStore } from '../stores/users.ts';
import { sampleToken } from '../testing/fake-api.ts';
import { useListLoader } from './use-list-loader.ts';

afterEach(() => vi.unstubAllGlobals());

/** A load whose answers the test releases one at a time, in any order. */
function controlledLoad<Item>() {
  const pending: Array<{ resolve: (items: Item[]) => void; reject: (error: Error) => void }> = [];
  const load = () =>
    new Promise<{ items: Item[] }>((resolve, reject) =>
      pending.push({ resolve: (items) => resolve({ items }), reject }),
    );
  return { load, pending };
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('useListLoader', () => {
  it('is loading until the answer, then holds the items; a failure keeps the error and the last items', async () => {
    const { load, pending } = controlledLoad<{ id: string }>();
    const list = useListLoader(load);
    const first = list.fetch();
    expect([list.loading.value, list.loaded.value]).toEqual([true, false]);
    pending[0]!.resolve([{ id: 'a' }]);
    await first;
    expect([list.loading.value, list.loaded.value, list.items.value]).toEqual([false, true, [{ id: 'a' }]]);
    const second = list.fetch();
    pending[1]!.reject(new Error('gateway down'));
    await second;
    expect(list.error.value?.message).toBe('gateway down');
    expect(list.items.value).toEqual([{ id: 'a' }]);
    expect(list.loading.value).toBe(false);
  });

  it('lets only the latest load set the list, however the answers arrive', async () => {
    const { load, pending } = controlledLoad<{ id: string }>();
    const list = useListLoader(load);
    const older = list.fetch();
    const newer = list.fetch();
    pending[1]!.resolve([{ id: 'new' }]);
    await newer;
    pending[0]!.resolve([{ id: 'stale' }]);
    await older;
    expect(list.items.value).toEqual([{ id: 'new' }]);
    const failing = list.fetch();
    list.reset();
    pending[2]!.reject(new Error('late'));
    await failing;
    expect([list.items.value, list.error.value, list.loaded.value]).toEqual([[], null, false]);
  });

  it('puts an item in place by id, a new one first or last, and removes one', async () => {
    const list = useListLoader(async () => ({
      items: [
        { id: 'a', n: 1 },
        { id: 'b', n: 1 },
      ],
    }));
    await list.fetch();
    list.put({ id: 'b', n: 2 });
    list.put({ id: 'c', n: 1 });
    list.put({ id: 'd', n: 1 }, { atEnd: true });
    list.remove('a');
    expect(list.items.value).toEqual([
      { id: 'c', n: 1 },
      { id: 'b', n: 2 },
      { id: 'd', n: 1 },
    ]);
  });
});

describe('the stores built on it', () => {
  it('keys, channels and users each keep the newest of two overlapping loads', async () => {
    setActivePinia(createPinia());
    let version = 0;
    const lists: Record<string, () => unknown> = {
      '/api/tokens': () => sampleToken({ name: `v${version++}` }),
      '/api/channels': () => ({ id: 'c1', name: `v${version++}` }),
      '/api/users': () => ({ id: 'u1', email: `v${version++}@example.com` }),
    };
    let round = 0;
    // Of two loads of a list, the first answer arrives last.
    vi.stubGlobal('fetch', async (url: string) => {
      const body = JSON.stringify({ items: [lists[url]!()] });
      await new Promise((resolve) => setTimeout(resolve, round++ % 2 === 0 ? 30 : 0));
      return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
    });
    const tokens = useTokensStore();
    const channels = useChannelsStore();
    const users = useUsersStore();
    await Promise.all([tokens.fetchTokens(), tokens.fetchTokens()]);
    await Promise.all([channels.fetchChannels(), channels.fetchChannels()]);
    await Promise.all([users.fetchUsers(), users.fetchUsers()]);
    await flush();
    expect(tokens.tokens.map((token) => token.name)).toEqual(['v1']);
    expect(channels.channels.map((channel) => channel.name)).toEqual(['v3']);
    expect(users.users.map((user) => user.email)).toEqual(['v5@example.com']);
  });
});
