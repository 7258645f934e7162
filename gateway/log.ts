/**
 * @module gateway/log
 * One JSON line per log record on stdout (errors on stderr), so log shippers need no parsing rules.
 * Never pass secrets here: keys appear only as hints, prompts and upstream keys never.
 */
import type { RequestRecord } from './relay/request-record.ts';

export type Log = (message: string, extra?: Record<string, unknown>) => void;

const levels = { debug: 10, info: 20, warn: 30, error: 40, fatal: 50, silent: 100 } as const;
type Level = keyof typeof levels;

function write(level: string, message: string, extra: Record<string, unknown> = {}): void {
  const line = JSON.stringify({ time: new Date().toISOString(), level, msg: message, ...extra });
  if (level === 'error' || level === 'fatal') console.error(line);
  else console.log(line);
}

export const log = {
  info: ((message, extra) => write('info', message, extra)) as Log,
  warn: ((message, extra) => write('warn', message, extra)) as Log,
  error: ((message, extra) => write('error', message, extra)) as Log,
};

export interface Logger {
  /** One line per relayed request at info: what, where, how it went; never a key or a prompt. */
  request(method: string, record: RequestRecord, latencyMs: number): void;
}

/** The request logger of one runtime, at `LOG_LEVEL` (debug, info, warn, error, silent). */
export function createLogger(level: string): Logger {
  const threshold = levels[(level in levels ? level : 'info') as Level];
  const enabled = threshold <= levels.info;
  return {
    request(method, record, latencyMs) {
      if (!enabled) return;
      write(record.status >= 500 ? 'warn' : 'info', 'request', {
        requestId: record.requestId,
        clientRequestId: record.clientRequestId,
        method,
        endpoint: record.endpoint,
        model: record.modelRequested,
        channel: record.channelName,
        status: record.status,
        errorType: record.errorType,
        stream: record.stream,
        latencyMs: Math.round(latencyMs),
        firstTokenMs: record.firstTokenMs === null ? null : Math.round(record.firstTokenMs),
        promptTokens: record.usage?.promptTokens ?? 0,
        completionTokens: record.usage?.completionTokens ?? 0,
        attempts: record.attempts.length,
        userId: record.userId,
        tokenId: record.tokenId,
      });
    },
  };
}
