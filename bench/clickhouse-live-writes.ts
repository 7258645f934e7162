/**
 * @module bench/clickhouse-live-writes
 * What one live write of the projector costs as an hour fills up: the product's ClickHouse writer
 * writes an hour's traffic in large writes (all but its last minutes, as a busy hour so far), then
 * times writes of one second of live traffic each (the projector writes about once a second), at
 * several fill levels. A write whose cost grew with the hour so far would fall behind within the hour
 * at a steady rate (docs/performance.md, "Live writes").
 */
import type { ClickHouseClient } from '@clickhouse/client';
import type { GatewayEvent } from '../contracts/events/index.ts';
import { ClickHouseUsageWriter } from '../stores/cluster/clickhouse-usage-writer.ts';
import { migrateClickHouse } from '../stores/cluster/connections.ts';
import { median } from './paired.ts';
import { TrafficGenerator } from './pipeline.ts';

export interface LiveWritesPlan {
  /** requests already in the hour at each measured point, ascending */
  fillLevels: number[];
  /** requests of one live write (one second of traffic) */
  writeRequests: number;
  /** live writes timed at each level */
  writes: number;
}

export interface LiveWritesResult {
  writeRequests: number;
  levels: Array<{ requestsInHour: number; writeMs: number[]; medianMs: number }>;
}

const HOUR_MS = 3_600_000;
const FILL_WRITE = 50_000;
/** The filled part of the hour ends this long after its start; live writes come after it. */
const FILLED_MS = 2_900_000;
const LIVE_FROM_MS = 3_000_000;

function traffic(generator: TrafficGenerator, requests: number, end: number, spanMs: number): GatewayEvent[] {
  generator.within(end, spanMs);
  const events: GatewayEvent[] = [];
  for (let index = 0; index < requests; index++) events.push(...generator.request());
  return events;
}

export async function measureLiveWrites(
  clickhouse: ClickHouseClient,
  database: string,
  plan: LiveWritesPlan,
): Promise<LiveWritesResult> {
  await migrateClickHouse(clickhouse, database);
  // The previous hour, so that the timed writes stay within one hour whatever the clock says, and
  // it is a recent hour (summed from its minute slots) as a live one is.
  const hourStart = Math.floor(Date.now() / HOUR_MS) * HOUR_MS - HOUR_MS;
  const writer = new ClickHouseUsageWriter(clickhouse, database, () => hourStart + LIVE_FROM_MS);
  const generator = new TrafficGenerator(20);
  const levels: LiveWritesResult['levels'] = [];
  let inHour = 0;
  let second = 0;
  for (const level of plan.fillLevels) {
    while (inHour < level) {
      const requests = Math.min(FILL_WRITE, level - inHour);
      await writer.write(traffic(generator, requests, hourStart + FILLED_MS, FILLED_MS));
      inHour += requests;
    }
    const writeMs: number[] = [];
    for (let index = 0; index < plan.writes; index++, second++) {
      const events = traffic(generator, plan.writeRequests, hourStart + LIVE_FROM_MS + (second + 1) * 1000, 1000);
      const start = performance.now();
      await writer.write(events);
      writeMs.push(performance.now() - start);
      inHour += plan.writeRequests;
    }
    levels.push({ requestsInHour: level, writeMs, medianMs: median(writeMs) });
  }
  return { writeRequests: plan.writeRequests, levels };
}
