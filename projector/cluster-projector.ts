/**
 * @module projector/cluster-projector
 * The projector of the cluster: a Kafka consumer group that applies each batch to Redis (lookups, key
 * usage) and ClickHouse (usage tables), and commits the batch's offsets only after both writes
 * succeeded. A crash anywhere re-delivers from the last commit; every write is idempotent, so the
 * effect on totals is exactly once. While a store is down the batch is retried with backoff (and the
 * consumer keeps its heartbeat), so nothing is skipped.
 *
 * Throughput: the batches of every partition go to one write queue (projection-queue.ts), which
 * writes everything fetched meanwhile at once, while the consumer goes on fetching and parsing: the
 * stores' per-statement cost is paid once for many partitions' batches, and the projector's own CPU
 * work overlaps ClickHouse's. Each batch is encoded for both stores as soon as it is parsed (its
 * ClickHouse rows as TabSeparated bytes, its usage as the Redis script's keys and arguments), so the
 * queue holds no parsed events. A batch's offsets are committed only after the write holding it, in
 * the order the writes finish. Writing batches of several partitions together is safe because every
 * write is idempotent and order-free across partitions: Redis documents move only forward, key usage
 * moves only past its partition's offset, and the ClickHouse rollups are recomputed with versions taken before they
 * read (see clickhouse-usage-writer.ts). Within a partition, batches stay in order.
 *
 * kafkajs restarts its consumer after a retriable error, and leaves it stopped after any other: the
 * projector then starts a new consumer itself (see #restartConsumer), so that a broker restart at an
 * unlucky moment does not leave a live process that consumes nothing.
 */
import type { Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import type { GatewayEvent } from '../contracts/events/index.ts';
import { decodeLogMessage } from '../contracts/events/log-message.ts';
import { trafficFacts } from '../contracts/events/traffic-facts.ts';
import { type ClickHousePayloads, isPayloadEvent } from '../stores/cluster/clickhouse-payloads.ts';
import { type TrafficRows, trafficRows } from '../stores/cluster/clickhouse-traffic-rows.ts';
import type { ClickHouseUsageWriter } from '../stores/cluster/clickhouse-usage-writer.ts';
import type { TopicNames } from '../stores/cluster/kafka-event-log.ts';
import { logPosition, type RedisBatch, type RedisProjectionWriter } from '../stores/cluster/redis-projection-writer.ts';
import { ProjectionQueue } from './projection-queue.ts';

/**
 * A batch as the queue holds it until its write: what it does to each store, made when it is read
 * (the parsed events are dropped at once; see RedisBatch and TrafficRows).
 */
interface PreparedBatch {
  /** what each slice does to Redis, in order (see ENCODED_SLICE_EVENTS) */
  redis: RedisBatch[];
  /** the slices that hold traffic */
  clickhouse: TrafficRows[];
  /** captured payloads and their deletions, for their own tables */
  payloads: GatewayEvent[];
}

/**
 * A batch's events are encoded for the stores this many at a time, as they are parsed: a fetched batch
 * holds up to 4 MiB of messages, and its parsed events, all kept until the batch was encoded, outlived
 * a young-generation collection or two and were copied and promoted; a slice's are dropped before the
 * next slice is parsed.
 */
const ENCODED_SLICE_EVENTS = 1024;

/** Events fetched ahead of the write under way (about 15 MB of encoded rows and usage arguments at most). */
const MAX_QUEUED_EVENTS = 60_000;
/** Events per write: an insert of about 10 MB of rows for each raw table. */
const MAX_WRITE_EVENTS = 60_000;
/**
 * Under live traffic a write starts at most this often by default (projection-queue.ts): the overview
 * is up to that much later, and ClickHouse's cost per write (about 240 ms of its CPU on the bench
 * machine, whatever the write holds) is paid once a second instead of back to back. A write that
 * takes longer than a tenth of this stretches the interval to ten times its length (at most 5 s), so
 * that loaded stores are written less often. Figures: docs/performance.md, "The cluster beside its
 * servers" and "The projector's batches kept as bytes".
 */
export const LIVE_WRITE_INTERVAL_MS = 1_000;

/** The first new consumer after a crash kafkajs does not recover from starts after this; the next ones later. */
const RESTART_DELAY_MS = 1_000;
const MAX_RESTART_DELAY_MS = 10_000;

/** see the consumer's `minBytes` below */
const FETCH_MIN_BYTES = 8 * 1024 * 1024;
const FETCH_MAX_WAIT_MS = 250;

export interface ClusterProjectorOptions {
  kafka: Kafka;
  topics: TopicNames;
  groupId: string;
  redisWriter: RedisProjectionWriter;
  clickhouseWriter: ClickHouseUsageWriter;
  /** the captured payloads' tables; without it (a rebuild, which keeps them) payload events are passed over */
  payloadWriter?: Pick<ClickHousePayloads, 'write'>;
  log?: (message: string, extra?: Record<string, unknown>) => void;
  /** Partitions whose batches are handed to the write queue at once (default 12: every partition of both topics). */
  partitionsConsumedConcurrently?: number;
  /**
   * Called after each committed batch with its count of events and of messages (a message carries one
   * event or several: contracts/events/log-message.ts); the rebuild watches it to know when it has
   * caught up.
   */
  onBatch?: (topic: string, partition: number, lastOffset: string, events: number, messages: number) => void;
  /** see LIVE_WRITE_INTERVAL_MS (0: each write starts as soon as the last one ended) */
  writeIntervalMs?: number;
  /** the consumer group's session timeout (default 10,000 ms; at least the broker's group.min.session.timeout.ms) */
  sessionTimeoutMs?: number;
}

export class ClusterProjector {
  readonly #options: ClusterProjectorOptions;
  #consumer: Consumer;
  /** New consumers started since the last one joined its group: the backoff of the next restart. */
  #restarts = 0;
  #restartTimer: NodeJS.Timeout | null = null;
  /** Set once a crash is logged, until the consumer joins its group again. */
  #crashReported = false;
  #applied = 0;
  #lastBatchAt = 0;
  #stopping = false;
  #joined = false;
  #commits: Promise<void> = Promise.resolve();
  /** Offsets whose writes finished and that the next commit takes, by topic and partition. */
  readonly #pendingCommits = new Map<string, { topic: string; partition: number; offset: string }>();
  #nextCommit: Promise<void> | null = null;
  #lastCommit: Promise<void> = Promise.resolve();
  readonly #queue: ProjectionQueue<PreparedBatch>;

  constructor(options: ClusterProjectorOptions) {
    this.#options = options;
    this.#queue = new ProjectionQueue(
      (batches) => this.#write(batches),
      MAX_QUEUED_EVENTS,
      MAX_WRITE_EVENTS,
      options.writeIntervalMs ?? LIVE_WRITE_INTERVAL_MS,
    );
    this.#consumer = this.#newConsumer();
  }

  #newConsumer(): Consumer {
    const consumer = this.#options.kafka.consumer({
      groupId: this.#options.groupId,
      sessionTimeout: this.#options.sessionTimeoutMs ?? 10_000,
      heartbeatInterval: 1_000,
      // A batch of up to 4 MiB from each of the six traffic partitions in one fetch (kafkajs caps a
      // fetch at 10 MiB by default), so the three partitions in flight each get a whole batch. Batches
      // of 8 MiB were no faster, and their inserts were sometimes cut off by ClickHouse (EPIPE).
      maxBytesPerPartition: 4 * 1024 * 1024,
      maxBytes: 24 * 1024 * 1024,
      // Under live traffic the broker holds a fetch until it has this much or this long has passed:
      // with kafkajs's defaults (any byte, at once) the consumer fetched a few events hundreds of
      // times a second, and its socket writes alone were 12% of the projector's CPU, while a write
      // starts at most once a second anyway (LIVE_WRITE_INTERVAL_MS). More bytes than live traffic
      // brings in the wait (8 MiB is about 8,000 requests' events) makes it a fetch every 250 ms
      // whatever the rate: with 256 KiB a busy node's traffic came in a dozen fetches a second, each
      // a batch per partition to parse and encode on its own, and the projector spent about a tenth
      // more CPU a request (docs/performance.md, "The projector's live fetches"). A backlog fills every
      // fetch at once.
      minBytes: FETCH_MIN_BYTES,
      maxWaitTimeInMs: FETCH_MAX_WAIT_MS,
      retry: { retries: Number.MAX_SAFE_INTEGER, initialRetryTime: 300, maxRetryTime: 5_000 },
    });
    // Whether the consumer holds partitions: what the projector's health check and start watchdog read.
    // A consumer replaced after its crash may still report; only the current one speaks for the projector.
    consumer.on(consumer.events.GROUP_JOIN, () => {
      if (consumer !== this.#consumer) return;
      this.#joined = true;
      this.#restarts = 0;
      this.#crashReported = false;
    });
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (consumer !== this.#consumer) return;
      this.#joined = false;
      const { error, restart } = payload as { error: Error; restart: boolean };
      // While the broker is down kafkajs crashes and restarts every half second: one line per outage.
      if (!restart || !this.#crashReported) {
        this.#options.log?.('projector consumer crashed', { error: `${error.name}: ${error.message}`, restart });
      }
      this.#crashReported = true;
      // Seen when the broker went away while the consumer was finding its group coordinator
      // ("Failed to find group coordinator", not retriable to kafkajs): nothing would consume again.
      if (!restart) this.#scheduleRestart();
    });
    return consumer;
  }

  /** True once the consumer has joined its group (and until it crashes). */
  get joined(): boolean {
    return this.#joined;
  }

  /** Events applied since start, and when the last batch was. */
  get progress(): { applied: number; lastBatchAt: number } {
    return { applied: this.#applied, lastBatchAt: this.#lastBatchAt };
  }

  async start(): Promise<void> {
    // Rollups added after a deployment began are filled from its raw tables before the first batch.
    await this.#options.clickhouseWriter.prepare(this.#options.log);
    await this.#run(this.#consumer);
  }

  async #run(consumer: Consumer): Promise<void> {
    const { topics } = this.#options;
    await consumer.connect();
    await consumer.subscribe({ topics: [topics.entity, topics.traffic], fromBeginning: true });
    await consumer.run({
      eachBatchAutoResolve: false,
      autoCommit: false,
      partitionsConsumedConcurrently: this.#options.partitionsConsumedConcurrently ?? 12,
      eachBatch: (payload) => this.#eachBatch(payload),
    });
  }

  #scheduleRestart(): void {
    if (this.#stopping || this.#restartTimer) return;
    const delay = Math.min(RESTART_DELAY_MS * 2 ** this.#restarts, MAX_RESTART_DELAY_MS);
    this.#restarts += 1;
    // Not unref'd: while the consumer is down, this timer is the projector's pending work.
    this.#restartTimer = setTimeout(() => {
      this.#restartTimer = null;
      void this.#restartConsumer();
    }, delay);
  }

  /**
   * Replaces a consumer kafkajs gave up on. The new member resumes from the group's committed offsets,
   * so batches fetched but not yet committed are delivered again, which the idempotent writes absorb;
   * a write of the old consumer's batches still under way commits through the new one, or fails to
   * and leaves them to be delivered again.
   */
  async #restartConsumer(): Promise<void> {
    if (this.#stopping) return;
    const attempt = this.#restarts;
    const stopped = this.#consumer;
    await stopped.disconnect().catch(() => {});
    if (this.#stopping) return;
    const consumer = this.#newConsumer();
    this.#consumer = consumer;
    try {
      await this.#run(consumer);
      this.#options.log?.('projector consumer started again', { attempt });
    } catch (error) {
      this.#options.log?.('projector consumer could not start again; retrying', { attempt, error: String(error) });
      if (consumer === this.#consumer) this.#scheduleRestart();
    }
  }

  /** Writes one group of batches, retrying with backoff while a store is down, until it is stopped. */
  async #write(batches: PreparedBatch[]): Promise<void> {
    const redis = batches.flatMap((batch) => batch.redis);
    const clickhouse = batches.flatMap((batch) => batch.clickhouse);
    const payloads = batches.flatMap((batch) => batch.payloads);
    for (let attempt = 0; ; attempt++) {
      try {
        // Independent stores: a failure of either retries both, which is harmless.
        await Promise.all([
          this.#options.redisWriter.applyBatches(redis),
          clickhouse.length > 0 ? this.#options.clickhouseWriter.writeRows(clickhouse) : null,
          payloads.length > 0 ? this.#options.payloadWriter?.write(payloads) : null,
        ]);
        return;
      } catch (error) {
        if (this.#stopping) throw error;
        this.#options.log?.('projection write failed; retrying', { attempt, error: String(error) });
        await new Promise((resolve) => setTimeout(resolve, Math.min(200 * 2 ** attempt, 5_000)));
        if (this.#stopping) throw error;
      }
    }
  }

  async #eachBatch({ batch, resolveOffset, heartbeat, isRunning, isStale }: EachBatchPayload): Promise<void> {
    if (batch.messages.length === 0 || this.#stopping || !isRunning() || isStale()) return;
    const { prepared, eventCount } = this.#prepare(batch);
    const lastOffset = batch.messages.at(-1)!.offset;
    const { accepted, written } = this.#queue.enqueue(prepared, eventCount);
    // The next fetch starts from here; the committed offset moves only once the events are written,
    // so a crash or a rebalance before that re-delivers them (and the writes are idempotent).
    resolveOffset(lastOffset);
    // The closures below outlive the batch's parsing by up to a write: they keep these few values, not
    // the batch's messages or events.
    const { topic, partition } = batch;
    const messageCount = batch.messages.length;
    const commit = { topic, partition, offset: String(Number(lastOffset) + 1) };
    // The batches of one write finish together and are committed in one request; false when the
    // write was abandoned (the projector stopping), and the batch will be re-delivered.
    const committed = written.then(
      () => {
        this.#pendingCommits.set(`${topic}\u0000${partition}`, commit);
        return this.#commitPending().then(() => true);
      },
      () => false,
    );
    committed.catch(() => {});
    // Batches are counted one after the other, in the order their writes finish.
    this.#commits = this.#commits.then(async () => {
      if (!(await committed)) return;
      this.#applied += eventCount;
      this.#lastBatchAt = Date.now();
      this.#options.onBatch?.(topic, partition, lastOffset, eventCount, messageCount);
    });
    this.#commits = this.#commits.catch((error: unknown) =>
      this.#options.log?.('offset commit failed; the batch will be re-delivered', { error: String(error) }),
    );
    // While the queue is full the consumer waits, heartbeating so the group keeps this member.
    await this.#waitForRoom(accepted, heartbeat);
  }

  /**
   * Resolves once the queue took the batch, heartbeating every second meanwhile. The queue usually
   * has room at once: no timer is made then, as a timer per batch (hundreds a second under live
   * traffic, each left pending for its second) was work for nothing.
   */
  async #waitForRoom(accepted: Promise<void>, heartbeat: () => Promise<void>): Promise<void> {
    let room = false;
    void accepted.then(() => {
      room = true;
    });
    // With room, `accepted` is already resolved: the callback above runs before this await resumes.
    await Promise.resolve();
    while (!room) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([accepted, new Promise((resolve) => (timer = setTimeout(resolve, 1_000)))]);
      clearTimeout(timer);
      await heartbeat().catch(() => {});
    }
  }

  /**
   * Commits every offset set in #pendingCommits by the time it runs: once the microtasks of the write
   * that just finished have run, so all of its batches go in one request. Commits go one after the
   * other, so a partition's committed offset only moves forward.
   */
  #commitPending(): Promise<void> {
    this.#nextCommit ??= this.#lastCommit
      .catch(() => {})
      .then(() => new Promise((resolve) => setImmediate(resolve)))
      .then(async () => {
        this.#nextCommit = null;
        const offsets = [...this.#pendingCommits.values()];
        this.#pendingCommits.clear();
        if (offsets.length > 0) await this.#consumer.commitOffsets(offsets);
      });
    this.#lastCommit = this.#nextCommit;
    return this.#nextCommit;
  }

  /** A batch's events encoded for both stores, a slice at a time (ENCODED_SLICE_EVENTS), and their count. */
  #prepare(batch: EachBatchPayload['batch']): { prepared: PreparedBatch; eventCount: number } {
    const prepared: PreparedBatch = { redis: [], clickhouse: [], payloads: [] };
    let eventCount = 0;
    let slice: GatewayEvent[] = [];
    let positions: string[] = [];
    const encode = () => {
      eventCount += slice.length;
      const place = { topic: batch.topic, partition: batch.partition, positions };
      prepared.redis.push(this.#options.redisWriter.batchOf(slice, place));
      if (slice.some((event) => event.type === 'request.completed' || event.type === 'usage.recorded'))
        prepared.clickhouse.push(trafficRows(slice));
      for (const event of slice) if (isPayloadEvent(event)) prepared.payloads.push(event);
      slice = [];
      positions = [];
    };
    for (const message of batch.messages) {
      this.#decode(batch, message, slice, positions);
      if (slice.length >= ENCODED_SLICE_EVENTS) encode();
    }
    if (slice.length > 0) encode();
    return { prepared, eventCount };
  }

  /**
   * Appends a message's events to `events`, and each one's log position (its offset and its index
   * among the message's facts) to `positions`; what can never be read is logged and skipped.
   */
  #decode(batch: EachBatchPayload['batch'], message: KafkaMessage, events: GatewayEvent[], positions: string[]): void {
    if (!message.value) return;
    // An event that can never be read must not stop the partition: log it with its position.
    const skipped = (error: string, index?: number) =>
      this.#options.log?.('unreadable event skipped', {
        topic: batch.topic,
        partition: batch.partition,
        offset: message.offset,
        ...(index === undefined ? {} : { index }),
        error,
      });
    try {
      const decoded = decodeLogMessage(message.value.toString('utf8'));
      // A request's usage is applied as a fact of its own, as when it was a second event.
      for (const [index, event] of trafficFacts(decoded.events).entries()) {
        events.push(event);
        positions.push(logPosition(message.offset, index));
      }
      for (const { index, error } of decoded.unreadable) skipped(error, index);
    } catch (error) {
      skipped(String(error));
    }
  }

  /** Finishes the writes under way and commits them (or abandons them while a store is down), then leaves. */
  async stop(): Promise<void> {
    this.#stopping = true;
    if (this.#restartTimer) clearTimeout(this.#restartTimer);
    this.#restartTimer = null;
    await this.#queue.idle();
    await this.#commits;
    await this.#consumer.disconnect();
  }
}
