/**
 * @module stores/cluster/kafka-event-log
 * Publishes events to Kafka: an idempotent producer, each event keyed by its entity (or request) so
 * one key's events stay in one partition, in order. When Kafka cannot take a batch, the batch goes to
 * the local outbox instead and the caller carries on; while the outbox holds anything, new events
 * queue behind it, and a drainer sends them in order once Kafka answers again.
 */
import type { Kafka, Producer } from 'kafkajs';
import { type GatewayEvent, partitionKeyOf, streamOf } from '../../contracts/events/index.ts';
import type { EventLog } from '../ports.ts';
import type { Outbox } from './outbox.ts';

export interface TopicNames {
  entity: string;
  traffic: string;
}

export function topicNames(prefix: string): TopicNames {
  return { entity: `${prefix}entity-events`, traffic: `${prefix}traffic-events` };
}

const DRAIN_BATCH = 1000;

export class KafkaEventLog implements EventLog {
  readonly #producer: Producer;
  readonly #topics: TopicNames;
  readonly #outbox: Outbox;
  readonly #onError: (error: unknown) => void;
  #draining: Promise<void> | null = null;
  #timer: NodeJS.Timeout | null = null;
  #connected = false;

  constructor(kafka: Kafka, topics: TopicNames, outbox: Outbox, onError: (error: unknown) => void = () => {}) {
    this.#producer = kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      retry: { retries: 3, initialRetryTime: 100, maxRetryTime: 1000 },
    });
    this.#topics = topics;
    this.#outbox = outbox;
    this.#onError = onError;
  }

  get outboxDepth(): number {
    return this.#outbox.size;
  }

  async start(): Promise<void> {
    this.#timer = setInterval(() => void this.drain(), 500);
    this.#timer.unref();
    await this.#connect().catch((error: unknown) => this.#onError(error));
  }

  async #connect(): Promise<void> {
    if (this.#connected) return;
    await this.#producer.connect();
    this.#connected = true;
  }

  async #send(events: readonly GatewayEvent[]): Promise<void> {
    await this.#connect();
    const byTopic = new Map<string, Array<{ key: string; value: string }>>();
    for (const event of events) {
      const topic = streamOf(event.type) === 'entity' ? this.#topics.entity : this.#topics.traffic;
      const messages = byTopic.get(topic) ?? [];
      messages.push({ key: partitionKeyOf(event), value: JSON.stringify(event) });
      byTopic.set(topic, messages);
    }
    await this.#producer.sendBatch({
      acks: -1,
      topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })),
    });
  }

  async append(events: readonly GatewayEvent[]): Promise<void> {
    if (events.length === 0) return;
    if (this.#outbox.size === 0) {
      try {
        await this.#send(events);
        return;
      } catch (error) {
        this.#onError(error);
      }
    }
    // Durable locally before we return: the events are not lost, only late.
    this.#outbox.add(events);
    void this.drain();
  }

  /** Sends what the outbox holds, oldest first, until it is empty or Kafka refuses. */
  drain(): Promise<void> {
    this.#draining ??= (async () => {
      try {
        while (this.#outbox.size > 0) {
          const { events, through } = this.#outbox.peek(DRAIN_BATCH);
          await this.#send(events);
          this.#outbox.remove(through);
        }
      } catch (error) {
        this.#onError(error);
      } finally {
        this.#draining = null;
      }
    })();
    return this.#draining;
  }

  async close(deadlineMs = 10_000): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    const deadline = Date.now() + deadlineMs;
    while (this.#outbox.size > 0 && Date.now() < deadline) {
      await this.drain();
      if (this.#outbox.size > 0) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    // Whatever is still in the outbox stays on disk and is sent at the next start.
    await this.#producer.disconnect().catch(() => {});
  }
}
