/**
 * @module bench/kafka-append
 * What appending traffic to Kafka costs a cluster node's thread, per request (two events), by message
 * format and by how many requests one append carries (under load an append holds what the publisher
 * queued during the last round trip to Kafka: a few requests at a few hundred requests/s, a hundred or
 * more at thousands). Variants, in alternating rounds on one producer each:
 *
 * - `per event`: one Kafka message per event keyed by its request, as the event log sent them before
 *   format 2 (contracts/events/log-message.ts);
 * - `batched`: the product's KafkaEventLog, a few messages of format 2 per append (kafka-messages.ts);
 * - `batched gzip`: the same with kafkajs's gzip, which runs on libuv's pool threads (counted).
 *
 * `paced` instead publishes a steady RATE of requests per second through the product's publisher
 * (gateway/events/publisher.ts), as the relay does, for DURATION ms per window, so that the appends
 * are as large as a round trip to Kafka and the log's append interval make them: `per event` with no
 * interval (the build before format 2), and the product's log with an interval of 0, 10, 20 and 50 ms.
 *
 * Prints CPU microseconds per request of this process (all threads) and of the Kafka broker (its pid file
 * under SERVICES_DIR), and appends per second; the machine's drift falls on every variant alike.
 *
 *   eval "$(scripts/services up)"; npx tsx bench/kafka-append.ts [sizes|paced]
 *   (ROUNDS, default 4; sizes: REQUESTS per window, default 4000, APPEND_REQUESTS, default 4,20,100;
 *    paced: RATE, default 2000 requests/s, DURATION, default 3000 ms)
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CompressionTypes, type Kafka, type Producer } from 'kafkajs';
import { type GatewayEvent, partitionKeyOf, streamOf } from '../contracts/events/index.ts';
import { EventPublisher } from '../gateway/events/publisher.ts';
import { connectKafka, ensureTopics } from '../stores/cluster/connections.ts';
import { KafkaEventLog, type TopicNames, topicNames } from '../stores/cluster/kafka-event-log.ts';
import { messagesOf } from '../stores/cluster/kafka-messages.ts';
import { Outbox } from '../stores/cluster/outbox.ts';
import { refuseDoubt } from '../stores/cluster/outbox-doubt.ts';
import { stickyPartitioner } from '../stores/cluster/sticky-partitioner.ts';
import type { EventLog } from '../stores/ports.ts';
import { TrafficGenerator } from './pipeline.ts';
import { threadCpuMs, treeCpuMs } from './processes.ts';

interface Appender extends EventLog {
  close(): Promise<void>;
}

/** CPU milliseconds of all of this process's threads. */
function processMs(): number {
  return readdirSync('/proc/self/task').reduce((sum, tid) => sum + threadCpuMs(process.pid, Number(tid)), 0);
}

function brokerPid(): number | null {
  try {
    return Number(readFileSync(path.join(process.env.SERVICES_DIR ?? '', 'kafka/kafka.pid'), 'utf8').trim());
  } catch {
    return null;
  }
}

function producerOf(kafka: Kafka): Producer {
  // As the node's own producer (kafka-event-log.ts), so the layouts are measured as it sends them.
  return kafka.producer({ idempotent: true, maxInFlightRequests: 1, createPartitioner: stickyPartitioner });
}

/** One message per event, keyed by its entity or request: the format-1 layout. */
async function perEvent(kafka: Kafka, topics: TopicNames): Promise<Appender> {
  const producer = producerOf(kafka);
  await producer.connect();
  return {
    async append(events) {
      const byTopic = new Map<string, Array<{ key: string; value: string }>>();
      for (const event of events) {
        const topic = streamOf(event.type) === 'entity' ? topics.entity : topics.traffic;
        const messages = byTopic.get(topic) ?? [];
        messages.push({ key: partitionKeyOf(event), value: JSON.stringify(event) });
        byTopic.set(topic, messages);
      }
      await producer.sendBatch({
        acks: -1,
        topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })),
      });
    },
    close: () => producer.disconnect(),
  };
}

/** Format 2 through the same producer settings, gzip-compressed. */
async function batchedGzip(kafka: Kafka, topics: TopicNames): Promise<Appender> {
  const producer = producerOf(kafka);
  await producer.connect();
  return {
    async append(events) {
      await producer.sendBatch({
        acks: -1,
        compression: CompressionTypes.GZIP,
        topicMessages: [...messagesOf(events, topics)].map(([topic, messages]) => ({ topic, messages })),
      });
    },
    close: () => producer.disconnect(),
  };
}

/** The product's event log (with an outbox it should never use). */
async function batched(kafka: Kafka, topics: TopicNames, appendIntervalMs = 0): Promise<Appender> {
  const directory = mkdtempSync(path.join(tmpdir(), 'bench-outbox-'));
  const outbox = new Outbox(directory);
  const log = new KafkaEventLog(
    kafka,
    topics,
    outbox,
    refuseDoubt,
    (error) => {
      throw error;
    },
    { appendIntervalMs },
  );
  await log.start();
  return {
    append: (events) => log.append(events),
    appendIntervalMs,
    async close() {
      await log.close();
      outbox.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

type Open = (kafka: Kafka, topics: TopicNames) => Promise<Appender>;

const SIZE_VARIANTS: Record<string, Open> = { 'per event': perEvent, batched, 'batched gzip': batchedGzip };

const PACED_VARIANTS: Record<string, Open> = {
  'per event, no interval': perEvent,
  'batched, no interval': (kafka, topics) => batched(kafka, topics, 0),
  'batched, 10 ms': (kafka, topics) => batched(kafka, topics, 10),
  'batched, 20 ms': (kafka, topics) => batched(kafka, topics, 20),
  'batched, 50 ms': (kafka, topics) => batched(kafka, topics, 50),
};

/** Counts the appends a log is asked for (the publisher hides them). */
function counted(appender: Appender): Appender & { appends: number } {
  const wrapper = {
    appends: 0,
    appendIntervalMs: appender.appendIntervalMs,
    append(events: readonly GatewayEvent[]) {
      wrapper.appends++;
      return appender.append(events);
    },
    close: () => appender.close(),
  };
  return wrapper;
}

/** Appends `events` in appends of `size` requests, one after the other; returns the appends made. */
async function inSizes(appender: Appender, events: readonly GatewayEvent[], size: number): Promise<number> {
  let appends = 0;
  for (let start = 0; start < events.length; start += size * 2) {
    await appender.append(events.slice(start, start + size * 2));
    appends++;
  }
  return appends;
}

/** Publishes `rate` requests per second for `durationMs` through the product's publisher. */
async function paced(appender: Appender, events: readonly GatewayEvent[], rate: number, durationMs: number) {
  const log = counted(appender);
  const publisher = new EventPublisher(log);
  let next = 0;
  let published = 0;
  const started = performance.now();
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const due = ((performance.now() - started) / 1000) * rate;
      while (published < due) {
        publisher.publish(events[next]!, events[next + 1]!);
        next = (next + 2) % events.length;
        published++;
      }
      if (performance.now() - started >= durationMs) {
        clearInterval(timer);
        resolve();
      }
    }, 2);
  });
  await publisher.close();
  return { requests: published, appends: log.appends };
}

async function main(): Promise<void> {
  const brokers = process.env.KAFKA_BROKERS;
  if (!brokers) throw new Error('KAFKA_BROKERS is unset: eval "$(scripts/services up)" first');
  const mode = process.argv[2] === 'paced' ? 'paced' : 'sizes';
  const rounds = Number(process.env.ROUNDS ?? 4);
  const requests = Number(process.env.REQUESTS ?? 4000);
  const sizes = (process.env.APPEND_REQUESTS ?? '4,20,100').split(',').map(Number);
  const rate = Number(process.env.RATE ?? 2000);
  const durationMs = Number(process.env.DURATION ?? 3000);
  const namespace = `kafka-append-${Date.now().toString(36)}.`;
  const kafka = connectKafka({ kafkaBrokers: brokers }, 'kafka-append');
  const topics = topicNames(namespace);
  await ensureTopics(kafka, topics, 1);
  const generator = new TrafficGenerator(200);
  const events = Array.from({ length: requests }, () => generator.request()).flat();
  const appenders = new Map<string, Appender>();
  for (const [name, open] of Object.entries(mode === 'paced' ? PACED_VARIANTS : SIZE_VARIANTS))
    appenders.set(name, await open(kafka, topics));
  const broker = brokerPid();
  const totals = new Map<
    string,
    { ms: number; brokerMs: number; seconds: number; appends: number; requests: number }
  >();
  try {
    for (let round = 0; round < rounds; round++) {
      const order = [...appenders.keys()];
      if (round % 2 === 1) order.reverse();
      for (const size of mode === 'paced' ? [0] : sizes) {
        for (const name of order) {
          const appender = appenders.get(name)!;
          const started = performance.now();
          const cpu = processMs();
          const brokerCpu = broker ? treeCpuMs(broker) : 0;
          const done =
            mode === 'paced'
              ? await paced(appender, events, rate, durationMs)
              : { requests, appends: await inSizes(appender, events, size) };
          const key = mode === 'paced' ? `${name}, ${rate} requests/s` : `${name}, ${size} requests per append`;
          const total = totals.get(key) ?? { ms: 0, brokerMs: 0, seconds: 0, appends: 0, requests: 0 };
          total.ms += processMs() - cpu;
          total.brokerMs += broker ? treeCpuMs(broker) - brokerCpu : 0;
          total.seconds += (performance.now() - started) / 1000;
          total.appends += done.appends;
          total.requests += done.requests;
          totals.set(key, total);
        }
      }
    }
  } finally {
    for (const appender of appenders.values()) await appender.close();
    const admin = kafka.admin();
    await admin.connect();
    await admin.deleteTopics({ topics: [topics.entity, topics.traffic] }).catch(() => {});
    await admin.disconnect();
  }
  for (const [key, total] of [...totals].sort(([left], [right]) => left.localeCompare(right))) {
    const perRequest = (ms: number) => ((ms / total.requests) * 1000).toFixed(1).padStart(6);
    console.log(
      `${key.padEnd(40)} this process ${perRequest(total.ms)} µs/req, broker ${perRequest(total.brokerMs)} µs/req, ${(total.appends / total.seconds).toFixed(0).padStart(5)} appends/s, ${(total.requests / total.appends).toFixed(1).padStart(6)} requests/append`,
    );
  }
}

await main();
