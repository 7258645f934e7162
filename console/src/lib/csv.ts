/** CSV (RFC 4180) of usage log rows, with a guard against formula injection in spreadsheet apps. */
import type { UsageLogEntry } from '@contracts/console-api.ts';

export const CSV_COLUMNS = [
  'started_at',
  'request_id',
  'token_id',
  'token_name',
  'endpoint',
  'model_requested',
  'model_served',
  'stream',
  'status',
  'error_type',
  'prompt_tokens',
  'completion_tokens',
  'usage_estimated',
  // USD; empty when the model had no price
  'cost_usd',
  'latency_ms',
  'first_token_ms',
  // Added later, at the end so that existing spreadsheets' columns keep their places.
  'client_request_id',
  'error_message',
  'cached_tokens',
  'reasoning_tokens',
  'user_email',
  'channel_name',
  'end_user',
  'session_id',
  // `key=value` pairs joined by `; `
  'metadata',
  'cache_write_tokens',
] as const satisfies ReadonlyArray<keyof UsageLogEntry>;

export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  // A cell starting with = + - @ would run as a formula in a spreadsheet.
  if (/^[=+\-@\t\r]/.test(text) && typeof value === 'string') text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A header that names its unit where the field name does not: the time is an instant in UTC. */
const HEADERS: Partial<Record<(typeof CSV_COLUMNS)[number], string>> = { started_at: 'started_at_utc' };

const utc = (iso: string) => {
  const time = Date.parse(iso);
  return Number.isNaN(time) ? iso : new Date(time).toISOString();
};

/**
 * Starts with a byte-order mark: Excel reads a CSV without one in the system's legacy code page, which
 * garbled every non-ASCII key name and message; other spreadsheet apps skip it.
 */
function cellOf(row: UsageLogEntry, column: (typeof CSV_COLUMNS)[number]): unknown {
  if (column === 'started_at') return utc(row.started_at);
  if (column === 'metadata') {
    return row.metadata
      ? Object.entries(row.metadata)
          .map(([name, value]) => `${name}=${value}`)
          .join('; ')
      : null;
  }
  return row[column];
}

export function toCsv(rows: readonly UsageLogEntry[]): string {
  const lines = [CSV_COLUMNS.map((column) => HEADERS[column] ?? column).join(',')];
  for (const row of rows) {
    const cells = CSV_COLUMNS.map((column) => csvCell(cellOf(row, column)));
    lines.push(cells.join(','));
  }
  return `\uFEFF${lines.join('\r\n')}\r\n`;
}

/** Offers text as a file download. */
export function downloadText(text: string, filename: string, type = 'text/csv;charset=utf-8'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
