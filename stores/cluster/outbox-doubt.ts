/**
 * @module stores/cluster/outbox-doubt
 * Settles whether outbox events in doubt (outbox.ts) already reached the log, so that a node never
 * puts a request's usage in the log twice: the projector counts key usage once per log position
 * (redis-projection-scripts.ts), not once per request, and keeps nothing per request.
 *
 * Only events that carry usage matter: documents move forward by event id, stored responses are
 * kept by id, and ClickHouse's raw rows are deduplicated by request id, so any other event may be
 * sent again. For the ones that carry usage the node waits until the projector's committed offsets
 * on the traffic topic reach the topic's ends as they are now (after the send in doubt), and then
 * asks ClickHouse which of their requests it holds: a request is in ClickHouse's usage table only
 * if its event was in the log below those ends and the projector wrote it to ClickHouse and Redis
 * in the same committed write. Those are dropped; the others were never in the log and are sent.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import type { Kafka } from 'kafkajs';
import type { GatewayEvent } from '../../contracts/events/index.ts';
import { usageFactOf } from '../../contracts/events/traffic-facts.ts';
import { identifier, stringLiteral } from './clickhouse-sql.ts';

/** Tells which outbox events in doubt are already in the log and applied. */
export interface DoubtSettler {
  /** The event ids of those of `events` already in the log, to be dropped instead of sent again. */
  alreadyLogged(events: readonly GatewayEvent[]): Promise<Set<string>>;
}

/** How long one settling waits for the projector before the drain gives up and tries again later. */
const CATCH_UP_TIMEOUT_MS = 10_000;
const POLL_MS = 250;

/**
 * The table whose row shows that an event was applied, and the request id it is kept under: a
 * request's usage in `usage`, a request without usage in `requests`; null for events that are not
 * traffic.
 */
function trafficRowOf(event: GatewayEvent): { table: 'usage' | 'requests'; requestId: string } | null {
  if (event.type === 'usage.recorded') return { table: 'usage', requestId: event.body.requestId };
  if (event.type !== 'request.completed') return null;
  return { table: usageFactOf(event) ? 'usage' : 'requests', requestId: event.body.requestId };
}

export class ProjectedUsage implements DoubtSettler {
  readonly #kafka: Kafka;
  readonly #trafficTopic: string;
  readonly #projectorGroup: string;
  readonly #clickhouse: ClickHouseClient;
  readonly #database: string;

  constructor(
    kafka: Kafka,
    trafficTopic: string,
    projectorGroup: string,
    clickhouse: ClickHouseClient,
    database: string,
  ) {
    this.#kafka = kafka;
    this.#trafficTopic = trafficTopic;
    this.#projectorGroup = projectorGroup;
    this.#clickhouse = clickhouse;
    this.#database = identifier(database);
  }

  async alreadyLogged(events: readonly GatewayEvent[]): Promise<Set<string>> {
    // By table and request id, the in-doubt events that a row there would show applied.
    const wanted = { usage: new Map<string, string[]>(), requests: new Map<string, string[]>() };
    for (const event of events) {
      const row = trafficRowOf(event);
      if (!row) continue;
      const ids = wanted[row.table].get(row.requestId) ?? [];
      ids.push(event.eventId);
      wanted[row.table].set(row.requestId, ids);
    }
    // Only usage can count twice; a plain request is settled with it rather than sent for nothing.
    if (wanted.usage.size === 0) return new Set();
    await this.#projectorCaughtUp();
    const selects = (['usage', 'requests'] as const)
      .filter((table) => wanted[table].size > 0)
      .map(
        (table) => `SELECT DISTINCT '${table}' AS table, request_id FROM ${this.#database}.${table}
          WHERE request_id IN (${[...wanted[table].keys()].map(stringLiteral).join(', ')})`,
      );
    const result = await this.#clickhouse.query({ query: selects.join(' UNION ALL '), format: 'JSONEachRow' });
    const held = (await result.json()) as Array<{ table: 'usage' | 'requests'; request_id: string }>;
    return new Set(held.flatMap((row) => wanted[row.table].get(row.request_id) ?? []));
  }

  /** Resolves once the projector has committed every traffic message there is now; throws after a while. */
  async #projectorCaughtUp(): Promise<void> {
    const admin = this.#kafka.admin();
    await admin.connect();
    try {
      // A partition whose messages have all expired holds nothing to wait for.
      const ends = new Map(
        (await admin.fetchTopicOffsets(this.#trafficTopic))
          .filter((partition) => BigInt(partition.high) > BigInt(partition.low))
          .map((partition) => [partition.partition, BigInt(partition.high)]),
      );
      const deadline = Date.now() + CATCH_UP_TIMEOUT_MS;
      for (;;) {
        const [committed] = await admin.fetchOffsets({ groupId: this.#projectorGroup, topics: [this.#trafficTopic] });
        const behind = [...ends].filter(([partition, end]) => {
          const offset = committed?.partitions.find((found) => found.partition === partition)?.offset ?? '-1';
          return BigInt(offset) < end;
        });
        if (behind.length === 0) return;
        if (Date.now() > deadline)
          throw new Error(
            `outbox events in doubt wait for the projector: ${behind.length} traffic partitions not yet committed to their ends`,
          );
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    } finally {
      await admin.disconnect().catch(() => {});
    }
  }
}

/** For a log whose sends must not fail (the benches): a doubt is never settled, so the drain stops and says so. */
export const refuseDoubt: DoubtSettler = {
  alreadyLogged: () => Promise.reject(new Error('outbox events in doubt, where no send was expected to fail')),
};
