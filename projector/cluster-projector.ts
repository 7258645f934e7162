/**
 * @module projector/cluster-projector
 * The projector of the cluster: a Kafka consumer group that applies each batch to Redis (lookups, key
 * usage) and ClickHouse (usage tables), and commits the batch's offsets only after both writes
 * succeeded. A crash anywhere re-delivers from the last commit; every write is idempotent, so the
 * effect on totals is exactly once. While a store is down the batch is retried with backoff (and the
 * consumer keeps its heartbeat), so nothing is skipped.
 *
 * Throughput: the two stores are written at the same time, and several partitions' batches are in
 * flight at once, so the projector's own CPU work overlaps ClickHouse's round trips. Both are safe
 * because every write is idempotent and order-free across partitions: Redis documents move only
 * forward, key usage is guarded per request, and the ClickHouse rollups are recomputed with versions
 * taken before they read (see clickhouse-usage-writer.ts). Within a partition, batches stay in order.
 */
import type { Consumer, EachBatchPayload, Kafka } from 'kafkajs';
import type { GatewayEvent } from '../contracts/events/index.ts';
import { upcast } from '../contracts/events/upcast.ts';
import type { ClickHouseUsageWriter } from '../stores/cluster/clickhouse-usage-writer.ts';
import type { TopicNames } from '../stores/cluster/kafka-event-log.ts';
import type { RedisProjectionWriter } from '../stores/cluster/redis-projection-writer.ts';

export interface ClusterProjectorOptions {
  kafka: Kafka;
  topics: TopicNames;
  groupId: string;
  redisWriter: RedisProjectionWriter;
  clickhouseWriter: ClickHouseUsageWriter;
  log?: (message: string, extra?: Record<string, unknown>) => void;
  /** Partitions whose batches are processed at once (default 3). */
  partitionsConsumedConcurrently?: number;
  /** Called after each committed batch (the rebuild watches it to know when it has caught up). */
  onBatch?: (topic: string, partition: number, lastOffset: string, events: number) => void;
}

export class ClusterProjector {
  readonly #options: ClusterProjectorOptions;
  readonly #consumer: Consumer;
  #applied = 0;
  #lastBatchAt = 0;

  constructor(options: ClusterProjectorOptions) {
    this.#options = options;
    this.#consumer = options.kafka.consumer({
      groupId: options.groupId,
      sessionTimeout: 10_000,
      heartbeatInterval: 1_000,
      // A batch of up to 4 MiB from each of the six traffic partitions in one fetch (kafkajs caps a
      // fetch at 10 MiB by default), so the three partitions in flight each get a whole batch. Batches
      // of 8 MiB were no faster, and their inserts were sometimes cut off by ClickHouse (EPIPE).
      maxBytesPerPartition: 4 * 1024 * 1024,
      maxBytes: 24 * 1024 * 1024,
      retry: { retries: Number.MAX_SAFE_INTEGER, initialRetryTime: 300, maxRetryTime: 5_000 },
    });
  }

  /** Events applied since start, and when the last batch was. */
  get progress(): { applied: number; lastBatchAt: number } {
    return { applied: this.#applied, lastBatchAt: this.#lastBatchAt };
  }

  async start(): Promise<void> {
    const { topics } = this.#options;
    // Rollups added after a deployment began are filled from its raw tables before the first batch.
    await this.#options.clickhouseWriter.prepare(this.#options.log);
    await this.#consumer.connect();
    await this.#consumer.subscribe({ topics: [topics.entity, topics.traffic], fromBeginning: true });
    await this.#consumer.run({
      eachBatchAutoResolve: false,
      autoCommit: false,
      partitionsConsumedConcurrently: this.#options.partitionsConsumedConcurrently ?? 3,
      eachBatch: (payload) => this.#eachBatch(payload),
    });
  }

  async #eachBatch({
    batch,
    resolveOffset,
    heartbeat,
    commitOffsetsIfNecessary,
    isRunning,
    isStale,
  }: EachBatchPayload): Promise<void> {
    if (batch.messages.length === 0) return;
    const events: GatewayEvent[] = [];
    for (const message of batch.messages) {
      if (!message.value) continue;
      try {
        events.push(upcast(JSON.parse(message.value.toString('utf8'))));
      } catch (error) {
        // A message that can never be read must not stop the partition: log it with its position.
        this.#options.log?.('unreadable event skipped', {
          topic: batch.topic,
          partition: batch.partition,
          offset: message.offset,
          error: String(error),
        });
      }
    }
    for (let attempt = 0; ; attempt++) {
      if (!isRunning() || isStale()) return;
      try {
        const traffic = events.filter((event) => event.type === 'request.completed' || event.type === 'usage.recorded');
        // Independent stores: a failure of either retries both, which is harmless.
        await Promise.all([
          this.#options.redisWriter.apply(events),
          traffic.length > 0 ? this.#options.clickhouseWriter.write(traffic) : null,
        ]);
        break;
      } catch (error) {
        this.#options.log?.('projection write failed; retrying', { attempt, error: String(error) });
        await heartbeat().catch(() => {});
        await new Promise((resolve) => setTimeout(resolve, Math.min(200 * 2 ** attempt, 5_000)));
      }
    }
    resolveOffset(batch.messages.at(-1)!.offset);
    await commitOffsetsIfNecessary({
      topics: [
        {
          topic: batch.topic,
          partitions: [{ partition: batch.partition, offset: String(Number(batch.messages.at(-1)!.offset) + 1) }],
        },
      ],
    });
    await heartbeat();
    this.#applied += events.length;
    this.#lastBatchAt = Date.now();
    this.#options.onBatch?.(batch.topic, batch.partition, batch.messages.at(-1)!.offset, events.length);
  }

  async stop(): Promise<void> {
    await this.#consumer.disconnect();
  }
}
