/**
 * @module stores/usage-log-cursor
 * The usage log's keyset cursor, shared by both stores: the last row's start time and request id,
 * opaque to clients. An unreadable cursor is treated as none (the first page).
 */
export interface UsageLogCursor {
  time: number;
  id: string;
}

export function encodeCursor(time: number, id: string): string {
  return Buffer.from(JSON.stringify([time, id])).toString('base64url');
}

export function decodeCursor(cursor: string | undefined): UsageLogCursor | null {
  if (!cursor) return null;
  try {
    const [time, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as [unknown, unknown];
    if (typeof time === 'number' && Number.isSafeInteger(time) && typeof id === 'string') return { time, id };
  } catch {
    // Not ours: the first page.
  }
  return null;
}
