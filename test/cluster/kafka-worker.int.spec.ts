/**
 * The Kafka worker thread of a gateway node on a real Kafka: an append is answered once Kafka holds its
 * events, each on its stream's topic under its entity's key, exactly as printed; and events a worker
 * could not send (no broker reachable) wait in the outbox on disk and are sent, in order and ahead of
 * newer events of the same key, by the next worker started on the same directory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Kafka, Kafka as KafkaClient, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayEvent, partitionKeyOf, streamOf } from '../../contracts/events/index.ts';
import { newEvent } from '../../gateway/events/new-event.ts';
import { type TopicNames, topicNames } from '../../stores/cluster/kafka-event-log.ts';
import { KafkaThread } from '../../stores/cluster/kafka-thread.ts';
import { generatedTraffic } from '../support/generated-traffic.ts';
import { resolveClusterServices } from './cluster-services.ts';

const services = resolveClusterServices();

interface Received {
  topic: string;
  key: string;
  event: GatewayEvent;
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Reads both topics from the beginning until `count` messages arrived (or the time is up). */
async function readTopics(kafka: Kafka, topics: TopicNames, count: number): Promise<Received[]> {
  const consumer = kafka.consumer({ groupId: `kafka-worker-test-${Date.now()}-${Math.random()}` });
  const received: Received[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [topics.entity, topics.traffic], fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ topic, message }) => {
        received.push({ topic, key: message.key!.toString(), event: JSON.parse(message.value!.toString()) });
      },
    });
    const deadline = Date.now() + 30_000;
    while (received.length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    return received;
  } finally {
    await consumer.disconnect();
  }
}

describe.skipIf(services === null)('the Kafka worker thread on a real Kafka', () => {
  const run = Date.now().toString(36);
  let kafka: Kafka;
  const directories: string[] = [];
  const usedTopics: string[] = [];

  beforeAll(() => {
    kafka = new KafkaClient({
      clientId: 'kafka-worker-test',
      brokers: [services!.kafkaBrokers],
      logLevel: logLevel.NOTHING,
    });
  });

  afterAll(async () => {
    const admin = kafka.admin();
    await admin.connect();
    await admin.deleteTopics({ topics: usedTopics }).catch(() => {});
    await admin.disconnect();
    for (const directory of directories) rmSync(directory, { recursive: true, force: true });
  });

  function thread(
    namespace: string,
    directory: string,
    brokers = services!.kafkaBrokers,
    compression: 'none' | 'gzip' = 'none',
  ): KafkaThread {
    const topics = topicNames(namespace);
    usedTopics.push(topics.entity, topics.traffic);
    return new KafkaThread(
      {
        settings: { kafkaBrokers: brokers, trafficRetentionHours: 1 },
        clientId: 'kafka-worker-test',
        topics,
        dataDirectory: directory,
        compression,
      },
      () => {},
    );
  }

  function newDirectory(): string {
    const directory = mkdtempSync(path.join(tmpdir(), 'kafka-worker-'));
    directories.push(directory);
    return directory;
  }

  it.each(['none', 'gzip'] as const)(
    'answers an append once Kafka holds its events, each on its topic under its key (compression: %s)',
    async (compression) => {
      const namespace = `kworker${run}${compression}.`;
      const node = thread(namespace, newDirectory(), services!.kafkaBrokers, compression);
      await node.start();
      const entity = [
        newEvent('channel.removed', { channelId: 'channel-1' }),
        newEvent('channel.removed', { channelId: 'channel-2' }),
      ];
      const traffic = generatedTraffic(20, Date.now() - 60_000, 60_000, 3);
      try {
        // A command's append (objects) and the publisher's (serialised batches, side by side).
        await node.append(entity);
        await node.appendSerialized([node.serialize(traffic.slice(0, 7)), node.serialize(traffic.slice(7))]);
        expect(await node.outboxDepth()).toBe(0);
      } finally {
        await node.close(1_000);
      }
      const all = [...entity, ...traffic];
      const received = await readTopics(kafka, topicNames(namespace), all.length);
      expect(received).toHaveLength(all.length);
      const byId = new Map(received.map((message) => [message.event.eventId, message]));
      for (const event of all) {
        const message = byId.get(event.eventId);
        expect(message?.event).toEqual(event);
        expect(message?.key).toBe(partitionKeyOf(event));
        expect(message?.topic).toBe(
          streamOf(event.type) === 'entity' ? `${namespace}entity-events` : `${namespace}traffic-events`,
        );
      }
    },
    60_000,
  );

  it('sends what a worker without Kafka left in the outbox from the next start, before newer events of the same key', async () => {
    const namespace = `kworker${run}b.`;
    const directory = newDirectory();
    const offline = thread(namespace, directory, `127.0.0.1:${await closedPort()}`);
    await offline.start();
    const spooled = [1, 2, 3].map(() => newEvent('channel.removed', { channelId: 'channel-ordered' }));
    await offline.append(spooled.slice(0, 1));
    await offline.appendSerialized([offline.serialize(spooled.slice(1))]);
    expect(await offline.outboxDepth()).toBe(3);
    await offline.close(0);

    const online = thread(namespace, directory);
    await online.start();
    const newer = newEvent('channel.removed', { channelId: 'channel-ordered' });
    try {
      await online.append([newer]);
      const deadline = Date.now() + 20_000;
      while ((await online.outboxDepth()) !== 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(await online.outboxDepth()).toBe(0);
    } finally {
      await online.close(5_000);
    }
    const received = await readTopics(kafka, topicNames(namespace), 4);
    expect(received.map((message) => message.event.eventId)).toEqual([...spooled, newer].map((event) => event.eventId));
  }, 90_000);
});
