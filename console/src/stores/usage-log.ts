/**
 * The usage log: filters, the current page and the cursors that lead back to earlier pages. The range
 * is resolved once per search so paging stays on the same rows while new traffic arrives.
 */

import type { UsageLogEntry } from '@contracts/console-api.ts';
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import { listUsageLogsApi, type UsageLogsRequest } from '../api/usage.ts';
import { toCsv } from '../lib/csv.ts';
import { defaultKindFilters, kindQuery, type LogKindFilters } from '../lib/log-kind-filters.ts';
import { metadataQuery, parseMetadataLines } from '../lib/metadata-lines.ts';
import { defaultSelection, type RangeSelection, resolveRange, type TimeRange } from '../lib/range.ts';

export interface UsageLogFilters {
  selection: RangeSelection;
  tokenId: string;
  /** the gateway's request id or the caller's X-Request-Id, pasted whole */
  requestId: string;
  model: string;
  status: '' | 'ok' | 'error';
  endUser: string;
  sessionId: string;
  /** `key=value` lines, each an exact match */
  metadata: string;
  /** `self`, `all` (admins), or a user id (admins) */
  scope: string;
  /** endpoint, streaming and error type */
  kind: LogKindFilters;
}

export const PAGE_SIZE = 50;
export const MAX_EXPORT_ROWS = 10_000;

const defaultFilters = (): UsageLogFilters => ({
  selection: defaultSelection(),
  tokenId: '',
  requestId: '',
  model: '',
  status: '',
  endUser: '',
  sessionId: '',
  metadata: '',
  scope: 'self',
  kind: defaultKindFilters(),
});

export const useUsageLogStore = defineStore('usage-log', () => {
  const filters = ref<UsageLogFilters>(defaultFilters());
  const items = ref<UsageLogEntry[]>([]);
  /** the cursor each page was fetched with; the first page has none */
  const cursors = ref<Array<string | undefined>>([]);
  const nextCursor = ref<string | null>(null);
  /** how many requests match the filters (the first page's count, kept while paging) */
  const total = ref<number | null>(null);
  const range = ref<TimeRange | null>(null);
  const loading = ref(false);
  const exporting = ref(false);
  const error = ref<Error | null>(null);
  const page = computed(() => Math.max(cursors.value.length, 1));

  function query(cursor: string | undefined, limit = PAGE_SIZE): UsageLogsRequest {
    const { tokenId, requestId, model, status, scope, endUser, sessionId } = filters.value;
    const metadata = parseMetadataLines(filters.value.metadata) ?? {};
    return {
      ...range.value,
      limit,
      ...(cursor && { cursor }),
      ...(tokenId && { token_id: tokenId }),
      ...(requestId.trim() && { request_id: requestId.trim() }),
      ...(model.trim() && { model: model.trim() }),
      ...(status && { status }),
      ...(scope !== 'self' && { user_id: scope }),
      ...(endUser.trim() && { end_user: endUser.trim() }),
      ...(sessionId.trim() && { session_id: sessionId.trim() }),
      ...metadataQuery(metadata),
      ...kindQuery(filters.value.kind),
    };
  }

  async function load(cursor: string | undefined, pageCursors: Array<string | undefined>): Promise<void> {
    loading.value = true;
    error.value = null;
    try {
      const result = await listUsageLogsApi(query(cursor));
      items.value = result.items;
      nextCursor.value = result.next_cursor;
      if (result.total !== undefined) total.value = result.total;
      cursors.value = pageCursors;
    } catch (caught) {
      error.value = caught as Error;
    } finally {
      loading.value = false;
    }
  }

  /** Runs the search from the first page (filters changed, or refresh). */
  async function search(): Promise<void> {
    range.value = resolveRange(filters.value.selection);
    await load(undefined, [undefined]);
  }

  async function nextPage(): Promise<void> {
    if (nextCursor.value) await load(nextCursor.value, [...cursors.value, nextCursor.value]);
  }

  async function previousPage(): Promise<void> {
    if (cursors.value.length < 2) return;
    const earlier = cursors.value.slice(0, -1);
    await load(earlier[earlier.length - 1], earlier);
  }

  /** Every row matching the current filters (up to MAX_EXPORT_ROWS), as CSV. */
  async function exportCsv(): Promise<{ csv: string; count: number; capped: boolean }> {
    exporting.value = true;
    try {
      const rows: UsageLogEntry[] = [];
      let cursor: string | undefined;
      do {
        const result = await listUsageLogsApi(query(cursor, 500));
        rows.push(...result.items);
        cursor = result.next_cursor ?? undefined;
      } while (cursor && rows.length < MAX_EXPORT_ROWS);
      const exported = rows.slice(0, MAX_EXPORT_ROWS);
      return { csv: toCsv(exported), count: exported.length, capped: Boolean(cursor) || rows.length > MAX_EXPORT_ROWS };
    } finally {
      exporting.value = false;
    }
  }

  function $reset(): void {
    filters.value = defaultFilters();
    items.value = [];
    cursors.value = [];
    nextCursor.value = null;
    total.value = null;
    range.value = null;
    loading.value = false;
    exporting.value = false;
    error.value = null;
  }

  return {
    filters,
    items,
    page,
    nextCursor,
    total,
    range,
    loading,
    exporting,
    error,
    search,
    nextPage,
    previousPage,
    exportCsv,
    $reset,
  };
});
