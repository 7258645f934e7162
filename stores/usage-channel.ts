/**
 * @module stores/usage-channel
 * A channel's summed calls, errors and latency from either store's hourly rollup, as the console shows it.
 */
import type { ChannelUsage } from '../contracts/console-api.ts';

export function channelUsageOf(row: {
  channel_id: string;
  calls: number;
  errors: number;
  latency: number;
}): ChannelUsage {
  return {
    channel_id: row.channel_id,
    calls: row.calls,
    errors: row.errors,
    average_latency_ms: row.calls > 0 ? row.latency / row.calls : null,
  };
}
