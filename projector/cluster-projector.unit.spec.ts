import type { Kafka } from 'kafkajs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ClickHouseUsageWriter } from '../stores/cluster/clickhouse-usage-writer.ts';
import type { RedisProjectionWriter } from '../stores/cluster/redis-projection-writer.ts';
import { ClusterProjector } from './cluster-projector.ts';

/**
 * A stand-in for a kafkajs consumer: records what the projector asks of it, and lets the test emit the
 * instrumentation events kafkajs emits (the same `{ payload }` shape).
 */
class FakeConsumer {
  readonly events = { GROUP_JOIN: 'consumer.group_join', CRASH: 'consumer.crash' };
  readonly calls: string[] = [];
  readonly #listeners = new Map<string, (event: { payload: unknown }) => void>();

  on(name: string, listener: (event: { payload: unknown }) => void) {
    this.#listeners.set(name, listener);
    return () => this.#listeners.delete(name);
  }
  emit(name: string, payload: unknown = {}) {
    this.#listeners.get(name)?.({ payload });
  }
  async connect() {
    this.calls.push('connect');
  }
  async subscribe() {
    this.calls.push('subscribe');
  }
  async run() {
    this.calls.push('run');
  }
  async disconnect() {
    this.calls.push('disconnect');
  }
  async commitOffsets() {}
}

function crash(consumer: FakeConsumer, restart: boolean, message = 'Failed to find group coordinator') {
  consumer.emit(consumer.events.CRASH, { error: Object.assign(new Error(message), { name: 'KafkaJSError' }), restart });
}

describe('ClusterProjector, when kafkajs gives up on its consumer', () => {
  let consumers: FakeConsumer[];
  let logged: string[];
  let projector: ClusterProjector;

  beforeEach(async () => {
    vi.useFakeTimers();
    consumers = [];
    logged = [];
    const kafka = {
      consumer: () => {
        const consumer = new FakeConsumer();
        consumers.push(consumer);
        return consumer;
      },
    } as unknown as Kafka;
    projector = new ClusterProjector({
      kafka,
      topics: { entity: 'entity-events', traffic: 'traffic-events' },
      groupId: 'projector',
      redisWriter: {} as RedisProjectionWriter,
      clickhouseWriter: { prepare: async () => {} } as unknown as ClickHouseUsageWriter,
      log: (message) => logged.push(message),
    });
    await projector.start();
  });

  afterEach(async () => {
    await projector.stop();
    vi.useRealTimers();
  });

  it('leaves a crash kafkajs restarts from to kafkajs', async () => {
    const [first] = consumers;
    first!.emit(first!.events.GROUP_JOIN);
    expect(projector.joined).toBe(true);
    crash(first!, true, 'Connection error: connect ECONNREFUSED');
    expect(projector.joined).toBe(false);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(consumers).toHaveLength(1);
    expect(first!.calls).toEqual(['connect', 'subscribe', 'run']);
    expect(logged).toEqual(['projector consumer crashed']);
    // An outage crashes it again and again: logged once until it joins again.
    crash(first!, true, 'Connection error: connect ECONNREFUSED');
    expect(logged).toEqual(['projector consumer crashed']);
    first!.emit(first!.events.GROUP_JOIN);
    crash(first!, true, 'Connection error: connect ECONNREFUSED');
    expect(logged).toEqual(['projector consumer crashed', 'projector consumer crashed']);
  });

  it('starts a new consumer in the same group after a crash kafkajs does not restart from', async () => {
    const [first] = consumers;
    first!.emit(first!.events.GROUP_JOIN);
    crash(first!, false);
    expect(projector.joined).toBe(false);
    await vi.advanceTimersByTimeAsync(999);
    expect(consumers).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(first!.calls).toEqual(['connect', 'subscribe', 'run', 'disconnect']);
    expect(consumers).toHaveLength(2);
    const second = consumers[1]!;
    expect(second.calls).toEqual(['connect', 'subscribe', 'run']);
    expect(logged).toContain('projector consumer started again');
    second.emit(second.events.GROUP_JOIN);
    expect(projector.joined).toBe(true);
    // The replaced consumer no longer speaks for the projector.
    crash(first!, false);
    expect(projector.joined).toBe(true);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(consumers).toHaveLength(2);
  });

  it('keeps trying, with a growing delay, while a new consumer cannot start', async () => {
    const [first] = consumers;
    crash(first!, false);
    // Every consumer made from now on fails to connect until the broker is back.
    const failing = new Error('Connection error: connect ECONNREFUSED');
    const spy = vi.spyOn(FakeConsumer.prototype, 'connect').mockImplementation(async function (this: FakeConsumer) {
      this.calls.push('connect');
      if (consumers.length < 4) throw failing;
    });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(consumers).toHaveLength(2);
    expect(logged).toContain('projector consumer could not start again; retrying');
    await vi.advanceTimersByTimeAsync(1_999);
    expect(consumers).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(consumers).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(4_000);
    expect(consumers).toHaveLength(4);
    expect(consumers[3]!.calls).toEqual(['connect', 'subscribe', 'run']);
    consumers[3]!.emit(consumers[3]!.events.GROUP_JOIN);
    expect(projector.joined).toBe(true);
    spy.mockRestore();
    // Joined again: the next crash waits only the first delay.
    crash(consumers[3]!, false);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(consumers).toHaveLength(5);
  });

  it('starts no consumer once it is stopping', async () => {
    const [first] = consumers;
    crash(first!, false);
    await projector.stop();
    await vi.advanceTimersByTimeAsync(30_000);
    expect(consumers).toHaveLength(1);
  });
});

describe('ClusterProjector, handing batches to its write queue', () => {
  afterEach(() => vi.useRealTimers());

  it('leaves no timer behind for a batch the queue takes at once', async () => {
    vi.useFakeTimers();
    let eachBatch: ((payload: unknown) => Promise<void>) | undefined;
    const consumer = new FakeConsumer();
    consumer.run = async function (this: FakeConsumer, options?: { eachBatch: typeof eachBatch }) {
      eachBatch = options?.eachBatch;
    } as FakeConsumer['run'];
    const projector = new ClusterProjector({
      kafka: { consumer: () => consumer } as unknown as Kafka,
      topics: { entity: 'entity-events', traffic: 'traffic-events' },
      groupId: 'projector',
      redisWriter: {
        batchOf: () => ({ others: [] }),
        applyBatches: async () => [],
      } as unknown as RedisProjectionWriter,
      clickhouseWriter: { prepare: async () => {}, writeRows: async () => {} } as unknown as ClickHouseUsageWriter,
      log: () => {},
    });
    await projector.start();
    const before = vi.getTimerCount();
    let heartbeats = 0;
    for (let offset = 0; offset < 50; offset++) {
      await eachBatch!({
        batch: {
          topic: 'traffic-events',
          partition: 0,
          messages: [{ offset: String(offset), value: Buffer.from('{}') }],
        },
        resolveOffset: () => {},
        heartbeat: async () => {
          heartbeats++;
        },
        isRunning: () => true,
        isStale: () => false,
      });
    }
    // Before, each batch left a one-second timer pending (and called heartbeat once).
    expect(vi.getTimerCount() - before).toBeLessThan(5);
    expect(heartbeats).toBe(0);
    await vi.runAllTimersAsync();
    await projector.stop();
  });
});
