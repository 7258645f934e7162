/**
 * The Kafka worker thread with no broker to reach: every append is still answered, only once its
 * events are durable in the outbox on disk, in order; a batch that cannot be parsed is refused without
 * ending the worker; and what is left in the outbox at close stays on disk for the next start.
 * (The same worker against a real broker: test/cluster/kafka-worker.int.spec.ts.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { GatewayEvent } from '../../contracts/events/index.ts';
import { newEvent } from '../../gateway/events/new-event.ts';
import { topicNames } from './kafka-event-log.ts';
import { KafkaThread } from './kafka-thread.ts';
import { Outbox } from './outbox.ts';

/** A port nothing listens on: a broker that refuses every connection. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const channelEvent = (index: number) => newEvent('channel.removed', { channelId: `c${index}` });

let directory: string;
let thread: KafkaThread | null = null;

afterEach(async () => {
  await thread?.close(0);
  thread = null;
  rmSync(directory, { recursive: true, force: true });
});

async function unreachableThread(logged: string[] = []): Promise<KafkaThread> {
  directory = mkdtempSync(path.join(tmpdir(), 'kafka-thread-'));
  const started = new KafkaThread(
    {
      settings: { kafkaBrokers: `127.0.0.1:${await closedPort()}`, trafficRetentionHours: 1 },
      clientId: 'kafka-thread-test',
      topics: topicNames('kafka-thread-test.'),
      dataDirectory: directory,
      compression: 'none',
    },
    (message) => logged.push(message),
  );
  await started.start();
  return started;
}

function outboxEvents(): GatewayEvent[] {
  const outbox = new Outbox(directory);
  try {
    return outbox.peek(1_000).events;
  } finally {
    outbox.close();
  }
}

describe('KafkaThread with Kafka unreachable', () => {
  it('answers each append once its events are in the outbox on disk, in order, and keeps them at close', async () => {
    const logged: string[] = [];
    thread = await unreachableThread(logged);
    const first = [channelEvent(1), channelEvent(2)];
    await thread.append(first);
    expect(await thread.outboxDepth()).toBe(2);
    // Serialised batches, as the publisher hands them over, side by side in one append.
    const later = [channelEvent(3), channelEvent(4), channelEvent(5)];
    const batches = [thread.serialize(later.slice(0, 1)), thread.serialize(later.slice(1))];
    await thread.appendSerialized(batches);
    // The caller's bytes are copied, not moved: they stay usable for a retry.
    expect(batches[0]!.byteLength).toBeGreaterThan(0);
    expect(await thread.outboxDepth()).toBe(5);
    await thread.close(0);
    thread = null;
    expect(outboxEvents()).toEqual([...first, ...later]);
    expect(logged).toContain('Kafka send failed; spooling to the outbox');
  }, 30_000);

  it('refuses a batch that is not JSON with an error, and keeps serving', async () => {
    thread = await unreachableThread();
    await expect(thread.appendSerialized([Buffer.from('[{"type":')])).rejects.toThrow(/JSON/);
    await thread.append([channelEvent(7)]);
    expect(await thread.outboxDepth()).toBe(1);
  }, 30_000);

  it('refuses calls once closed instead of leaving them unanswered', async () => {
    thread = await unreachableThread();
    await thread.close(0);
    await expect(thread.append([channelEvent(8)])).rejects.toThrow(/not running/);
    expect(await thread.outboxDepth()).toBeNull();
  }, 30_000);
});
