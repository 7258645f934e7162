/**
 * @module projector/read-models/usage
 * What the usage projection derives from traffic events, independent of the store: the row of the
 * raw requests table and the hourly rollup key. Stores apply each event at most once per request
 * (the request row remembers which of its two events were applied), which makes replays harmless.
 */
import type { RequestCompleted, UsageRecorded } from '../../../contracts/events/index.ts';

export const HOUR_MS = 3_600_000;

/** Ranges over three days are shown by day unless the caller asks otherwise; shorter ones by hour. */
export function defaultGranularity(from: number, to: number): 'hour' | 'day' {
  return to - from > 3 * 24 * HOUR_MS ? 'day' : 'hour';
}

/**
 * Costs are summed as integer nano-dollars (exact); the console API shows USD, converted once from
 * the sum, so no rounding error accumulates.
 */
export function usdOfNano(nano: number): number {
  return nano / 1e9;
}

export function hourOf(isoTime: string): number {
  const time = Date.parse(isoTime);
  return time - (time % HOUR_MS);
}

export interface RollupKey {
  userId: string;
  tokenId: string;
  model: string;
  channelId: string;
  hour: number;
}

export function rollupKeyOfRequest(event: RequestCompleted): RollupKey {
  const body = event.body;
  return {
    userId: body.userId ?? '',
    tokenId: body.tokenId ?? '',
    model: body.modelRequested ?? '',
    channelId: body.channelId ?? '',
    hour: hourOf(body.startedAt),
  };
}

export function rollupKeyOfUsage(event: UsageRecorded): RollupKey {
  const body = event.body;
  return {
    userId: body.userId,
    tokenId: body.tokenId,
    model: body.model,
    channelId: body.channelId ?? '',
    hour: hourOf(body.startedAt),
  };
}

/** A request counts as an error when the client saw a non-2xx status or an in-band stream error. */
export function isError(event: RequestCompleted): boolean {
  return event.body.status >= 400 || event.body.errorType !== null;
}
