/**
 * @module bench/kafka-append
 * What a cluster node's Kafka worker (stores/cluster/kafka-thread.ts) costs per request, by compression
 * and by how many events one append carries: the publisher hands over one append at a time, of the
 * batches cut while the last one ran, so under load an append holds what arrived during one round trip
 * to Kafka (a few hundred events at 10,000 requests/s), and up to 500 when the log falls behind. Each
 * variant runs in its own worker, in alternating rounds; the figures are CPU per request (two events)
 * of this process's threads other than the main one (the worker, and the pool threads gzip runs on)
 * and of the Kafka broker (its pid file under SERVICES_DIR), with the appends per second.
 *
 *   eval "$(scripts/services up)"; npx tsx bench/kafka-append.ts   (ROUNDS, default 5; REQUESTS per window, default 20000)
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { GatewayEvent } from '../contracts/events/index.ts';
import { connectKafka } from '../stores/cluster/connections.ts';
import { topicNames } from '../stores/cluster/kafka-event-log.ts';
import { KafkaThread } from '../stores/cluster/kafka-thread.ts';
import { TrafficGenerator } from './pipeline.ts';
import { threadCpuMs, treeCpuMs } from './processes.ts';

/** As the publisher cuts them (gateway/events/publisher.ts). */
const SERIALIZED_BATCH = 100;

interface Variant {
  name: string;
  compression: 'none' | 'gzip';
  /** events per append */
  append: number;
}

const VARIANTS: Variant[] = [
  { name: 'none, 100 events per append', compression: 'none', append: 100 },
  { name: 'gzip, 100 events per append', compression: 'gzip', append: 100 },
  { name: 'none, 500 events per append', compression: 'none', append: 500 },
  { name: 'gzip, 500 events per append', compression: 'gzip', append: 500 },
];

/** CPU milliseconds of this process's threads other than the main one. */
function otherThreadsMs(): number {
  return readdirSync('/proc/self/task')
    .map(Number)
    .filter((tid) => tid !== process.pid)
    .reduce((sum, tid) => sum + threadCpuMs(process.pid, tid), 0);
}

function brokerPid(): number | null {
  try {
    return Number(readFileSync(path.join(process.env.SERVICES_DIR ?? '', 'kafka/kafka.pid'), 'utf8').trim());
  } catch {
    return null;
  }
}

function traffic(requests: number): GatewayEvent[] {
  const generator = new TrafficGenerator(200);
  return Array.from({ length: requests }, () => generator.request()).flat();
}

/** Appends `events` one append at a time, as the publisher does, each of serialised batches of 100. */
async function send(thread: KafkaThread, events: readonly GatewayEvent[], perAppend: number): Promise<number> {
  let appends = 0;
  for (let start = 0; start < events.length; start += perAppend) {
    const batches: Uint8Array[] = [];
    for (let cut = start; cut < Math.min(start + perAppend, events.length); cut += SERIALIZED_BATCH) {
      batches.push(thread.serialize(events.slice(cut, Math.min(cut + SERIALIZED_BATCH, start + perAppend))));
    }
    await thread.appendSerialized(batches);
    appends++;
  }
  return appends;
}

async function main(): Promise<void> {
  const brokers = process.env.KAFKA_BROKERS;
  if (!brokers) throw new Error('KAFKA_BROKERS is unset: eval "$(scripts/services up)" first');
  const rounds = Number(process.env.ROUNDS ?? 5);
  const requests = Number(process.env.REQUESTS ?? 20_000);
  const namespace = `kafka-append-${Date.now().toString(36)}.`;
  const topics = topicNames(namespace);
  const directory = mkdtempSync(path.join(tmpdir(), 'kafka-append-'));
  const threads = VARIANTS.map(
    (variant, index) =>
      new KafkaThread(
        {
          settings: { kafkaBrokers: brokers, trafficRetentionHours: 1 },
          clientId: 'kafka-append-bench',
          topics,
          dataDirectory: path.join(directory, String(index)),
          compression: variant.compression,
        },
        (message, extra) => console.error(message, extra),
      ),
  );
  const totals = VARIANTS.map(() => ({ workerMs: 0, brokerMs: 0, requests: 0, appends: 0, seconds: 0 }));
  const broker = brokerPid();
  try {
    for (const thread of threads) await thread.start();
    const events = traffic(requests);
    for (const [index, thread] of threads.entries())
      await send(thread, events.slice(0, 2_000), VARIANTS[index]!.append);
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? [...threads.keys()] : [...threads.keys()].reverse();
      for (const index of order) {
        const workerBefore = otherThreadsMs();
        const brokerBefore = broker ? treeCpuMs(broker) : 0;
        const started = performance.now();
        const appends = await send(threads[index]!, events, VARIANTS[index]!.append);
        const total = totals[index]!;
        total.seconds += (performance.now() - started) / 1000;
        total.workerMs += otherThreadsMs() - workerBefore;
        total.brokerMs += broker ? treeCpuMs(broker) - brokerBefore : 0;
        total.requests += requests;
        total.appends += appends;
      }
      console.error(`round ${round + 1} of ${rounds} done`);
    }
    console.log('variant                          worker µs/req  broker µs/req  appends/s  requests/s');
    for (const [index, variant] of VARIANTS.entries()) {
      const total = totals[index]!;
      const perRequest = (ms: number) => ((ms / total.requests) * 1000).toFixed(1).padStart(13);
      console.log(
        `${variant.name.padEnd(32)} ${perRequest(total.workerMs)}  ${broker ? perRequest(total.brokerMs) : '            -'}  ${(total.appends / total.seconds).toFixed(0).padStart(9)}  ${(total.requests / total.seconds).toFixed(0).padStart(10)}`,
      );
    }
  } finally {
    for (const thread of threads) await thread.close(1_000);
    const admin = connectKafka({ kafkaBrokers: brokers }, 'kafka-append-bench').admin();
    await admin.connect();
    await admin.deleteTopics({ topics: [topics.entity, topics.traffic] }).catch(() => {});
    await admin.disconnect();
    rmSync(directory, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
