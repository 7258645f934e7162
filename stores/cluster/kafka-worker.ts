/**
 * @module stores/cluster/kafka-worker
 * The Kafka worker thread of a cluster gateway node: runs the kafkajs producer and the outbox, so that
 * encoding record batches, their checksums, the broker round trips and the outbox's SQLite writes never
 * run on the thread that relays requests (they were most of a cluster node's CPU per request there).
 * The serving thread posts each append as the bytes its publisher printed; this thread parses them,
 * sends them as one batch keyed by entity, and replies once Kafka acknowledged them or the outbox holds
 * them (kafka-event-log.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { GatewayEvent } from '../../contracts/events/index.ts';
import { serializeError } from '../embedded/worker-protocol.ts';
import { connectKafka, ensureTopics } from './connections.ts';
import { KafkaEventLog } from './kafka-event-log.ts';
import type { KafkaRequest, KafkaWorkerData, KafkaWorkerMessage } from './kafka-worker-protocol.ts';
import { Outbox } from './outbox.ts';

const port = parentPort!;
const post = (message: KafkaWorkerMessage) => port.postMessage(message);
const log = (message: string, extra: Record<string, unknown> = {}) => post({ type: 'log', message, extra });

const { settings, clientId, topics, dataDirectory, compression } = workerData as KafkaWorkerData;

/** A batch's bytes as the events they print. */
function eventsOf(bytes: Uint8Array): GatewayEvent[] {
  return JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) as GatewayEvent[];
}

async function open(): Promise<KafkaEventLog> {
  const kafka = connectKafka(settings, clientId);
  await ensureTopics(kafka, topics, settings.trafficRetentionHours).catch((error: unknown) =>
    log('Kafka unreachable at start; events go to the local outbox until it answers', { error: String(error) }),
  );
  outbox = new Outbox(dataDirectory);
  const events = new KafkaEventLog(kafka, topics, outbox, {
    onError: (error) => log('Kafka send failed; spooling to the outbox', { error: String(error) }),
    compression,
  });
  await events.start();
  return events;
}

let outbox: Outbox | undefined;
let events: KafkaEventLog;
try {
  events = await open();
  post({ type: 'ready' });
} catch (error) {
  post({ type: 'failed', error: serializeError(error) });
  process.exit(1);
}

async function handle(request: KafkaRequest): Promise<unknown> {
  switch (request.method) {
    case 'append': {
      const batch = request.batches.length === 1 ? eventsOf(request.batches[0]!) : request.batches.flatMap(eventsOf);
      return events.append(batch);
    }
    case 'outboxDepth':
      return events.outboxDepth;
    case 'close':
      await events.close(request.deadlineMs);
      outbox?.close();
      return undefined;
  }
}

port.on('message', (request: KafkaRequest) => {
  handle(request).then(
    (value) => post({ type: 'reply', id: request.id, value }),
    (error: unknown) => post({ type: 'reply', id: request.id, error: serializeError(error) }),
  );
});
