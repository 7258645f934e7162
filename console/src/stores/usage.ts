/**
 * The data overview: the chosen range, bucket size and (for admins) whose usage, and the overview
 * the server computed for them. A newer fetch cancels an older one still in flight.
 */

import type { UsageOverview } from '@contracts/console-api.ts';
import { defineStore } from 'pinia';
import { ref } from 'vue';
import { getUsageOverviewApi } from '../api/usage.ts';
import {
  browserTimeZone,
  defaultSelection,
  type Granularity,
  type RangeSelection,
  resolveRange,
  type TimeRange,
} from '../lib/range.ts';

/** The `group_by` parameter; none until a metadata grouping names its key. */
function groupQuery(groupBy: string, metadataKey: string): { group_by?: string } {
  if (groupBy === 'metadata') return metadataKey.trim() ? { group_by: `metadata.${metadataKey.trim()}` } : {};
  return groupBy ? { group_by: groupBy } : {};
}

/** `self`, `all` (admins), or another user's id (admins). */
export type UsageScope = string;

export const useUsageStore = defineStore('usage', () => {
  const selection = ref<RangeSelection>(defaultSelection());
  const granularity = ref<Granularity | 'auto'>('auto');
  const scope = ref<UsageScope>('self');
  /** Days in the browser's time zone, or in UTC when the user switches to it. */
  const utc = ref(false);
  /** the overview's `group_by`: '' none, `end_user`, `session`, or `metadata` of `metadataKey` */
  const groupBy = ref<'' | 'end_user' | 'session' | 'metadata'>('');
  const metadataKey = ref('');
  const overview = ref<UsageOverview | null>(null);
  const range = ref<TimeRange | null>(null);
  const loading = ref(false);
  const error = ref<Error | null>(null);
  let inFlight: AbortController | null = null;

  async function fetchOverview(): Promise<void> {
    inFlight?.abort();
    const controller = new AbortController();
    inFlight = controller;
    loading.value = true;
    error.value = null;
    const resolved = resolveRange(selection.value);
    try {
      const result = await getUsageOverviewApi(
        {
          ...resolved,
          ...(granularity.value !== 'auto' && { granularity: granularity.value }),
          ...(scope.value !== 'self' && { user_id: scope.value }),
          tz: utc.value ? 'UTC' : browserTimeZone(),
          top_keys_by: 'cost',
          ...groupQuery(groupBy.value, metadataKey.value),
        },
        controller.signal,
      );
      if (controller !== inFlight) return;
      overview.value = result;
      range.value = resolved;
    } catch (caught) {
      if ((caught as Error).name !== 'AbortError') error.value = caught as Error;
    } finally {
      if (controller === inFlight) {
        loading.value = false;
        inFlight = null;
      }
    }
  }

  function $reset(): void {
    inFlight?.abort();
    inFlight = null;
    selection.value = defaultSelection();
    granularity.value = 'auto';
    scope.value = 'self';
    utc.value = false;
    groupBy.value = '';
    metadataKey.value = '';
    overview.value = null;
    range.value = null;
    loading.value = false;
    error.value = null;
  }

  return {
    selection,
    granularity,
    scope,
    utc,
    groupBy,
    metadataKey,
    overview,
    range,
    loading,
    error,
    fetchOverview,
    $reset,
  };
});
