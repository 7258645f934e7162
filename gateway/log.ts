/**
 * @module gateway/log
 * The per-request log line, written through the shared JSON logger (platform/log.ts).
 * Never pass secrets here: keys appear only as hints, prompts and upstream keys never.
 */
import { write } from '../platform/log.ts';
import type { RequestRecord } from './relay/request-record.ts';

const levels = { debug: 10, info: 20, warn: 30, error: 40, fatal: 50, silent: 100 } as const;
type Level = keyof typeof levels;

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
