/**
 * @module stores/cluster/kafka-worker-protocol
 * The messages between a cluster gateway node's serving thread and its Kafka worker thread, which runs
 * the kafkajs producer and the outbox. Internal to the cluster store (no wire or event shape is defined
 * here: events cross as the contracts' `GatewayEvent`, serialised). Every request carries an id and gets
 * exactly one `reply`; an append's reply means its events are acknowledged by Kafka or durable in the
 * outbox, as `KafkaEventLog.append`'s promise does.
 */
import type { SerializedError } from '../embedded/worker-protocol.ts';
import type { ClusterSettings } from './connections.ts';
import type { TopicNames } from './kafka-event-log.ts';

export interface KafkaWorkerData {
  settings: Pick<ClusterSettings, 'kafkaBrokers' | 'trafficRetentionHours'>;
  clientId: string;
  topics: TopicNames;
  dataDirectory: string;
  compression: 'none' | 'gzip';
  /** the worker's module, for the TypeScript loader when started from source */
  entry: string;
}

export type KafkaCall =
  /** batches of events, each the UTF-8 bytes of one JSON array, sent to Kafka in one `sendBatch` */
  | { method: 'append'; batches: Uint8Array[] }
  /** events waiting in the outbox */
  | { method: 'outboxDepth' }
  /** drains the outbox for up to `deadlineMs`, then disconnects; what is left stays on disk */
  | { method: 'close'; deadlineMs: number };

export type KafkaRequest = KafkaCall & { id: number };

export type KafkaWorkerMessage =
  | { type: 'ready' }
  | { type: 'failed'; error: SerializedError }
  /** a line for the node's log (the worker has no logger of its own) */
  | { type: 'log'; message: string; extra: Record<string, unknown> }
  | { type: 'reply'; id: number; value?: unknown; error?: SerializedError };
