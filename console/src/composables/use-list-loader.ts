/**
 * The loading state of one list from `/api` (`{items}`): the items, whether a load is under way,
 * has succeeded once, or failed; and the changes a store makes to it after a create, an update or a
 * delete. The keys, channels and users stores are each one of these plus their own commands.
 */

import type { ListOf } from '@contracts/console-api.ts';
import { type Ref, ref } from 'vue';

export function useListLoader<Item extends { id: string }>(load: () => Promise<ListOf<Item>>) {
  const items = ref([]) as Ref<Item[]>;
  const loading = ref(false);
  const loaded = ref(false);
  const error = ref<Error | null>(null);
  // Only the latest load may set the list: a slow earlier answer must not replace a newer one.
  let latest = 0;

  async function fetch(): Promise<void> {
    const call = ++latest;
    loading.value = true;
    error.value = null;
    try {
      const page = await load();
      if (call !== latest) return;
      items.value = page.items;
      loaded.value = true;
    } catch (caught) {
      if (call === latest) error.value = caught instanceof Error ? caught : new Error(String(caught));
    } finally {
      if (call === latest) loading.value = false;
    }
  }

  /** Puts the server's copy of an item in place of the one with its id, or first when it is new. */
  function put(item: Item, { atEnd = false } = {}): Item {
    const known = items.value.some((each) => each.id === item.id);
    if (known) items.value = items.value.map((each) => (each.id === item.id ? item : each));
    else items.value = atEnd ? [...items.value, item] : [item, ...items.value];
    return item;
  }

  function remove(id: string): void {
    items.value = items.value.filter((each) => each.id !== id);
  }

  function reset(): void {
    latest++;
    items.value = [];
    loading.value = false;
    loaded.value = false;
    error.value = null;
  }

  return { items, loading, loaded, error, fetch, put, remove, reset };
}
