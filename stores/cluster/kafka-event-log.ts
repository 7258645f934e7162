/**
 * @module stores/cluster/kafka-event-log
 * Publishes events to Kafka: an idempotent producer, an append's events in a few messages of several
 * events each (which events share a message, and their keys: kafka-messages.ts), so one entity's events
 * stay in one partition, in order. The publisher's batches are printed when it cuts them and joined as
 * bytes at the append (printed-batches.ts). When Kafka cannot take a batch, the batch goes to
 * the local outbox instead and the caller carries on; while the outbox holds anything, new events
 * queue behind it, and a drainer sends them in order once Kafka answers again. Events whose send may
 * have reached Kafka are in doubt: before they are sent again, the ones the log already holds are
 * dropped (outbox-doubt.ts), so that a request's usage is in the log once.
 */
import type { Kafka, Producer } from 'kafkajs';
import type { GatewayEvent } from '../../contracts/events/index.ts';
import type { EventLog } from '../ports.ts';
import { messagesOf, type OutgoingMessage, type TopicNames } from './kafka-messages.ts';
import type { Outbox } from './outbox.ts';
import type { DoubtSettler } from './outbox-doubt.ts';
import { eventsOfPrinted, messagesOfPrinted, printBatch } from './printed-batches.ts';
import { stickyPartitioner } from './sticky-partitioner.ts';

export type { TopicNames };

export function topicNames(prefix: string): TopicNames {
  return { entity: `${prefix}entity-events`, traffic: `${prefix}traffic-events` };
}

/** The projector's consumer group, whose committed offsets the outbox's doubt waits for. */
export function projectorGroupId(prefix: string): string {
  return `${prefix}projector`;
}

const DRAIN_BATCH = 1000;

/** A send that has not finished by then is treated as failed (its events are in doubt: see the module). */
const SEND_TIMEOUT_MS = 10_000;

/**
 * How long after its start a send given up at SEND_TIMEOUT_MS may still reach the broker: kafkajs goes
 * on with it (four attempts of a 1 s connection and a 5 s request, up to 1 s apart: connections.ts and
 * the producer's retry below), and bytes already on the wire land after the producer is dropped. Events
 * in doubt are settled only after that, so that the topic's ends the settling reads include such a
 * late write and the projector's commit past them shows whether it was applied.
 */
export const SEND_LIFETIME_MS = 4 * (1_000 + 5_000) + 3 * 1_000 + 2_000;

/**
 * The publisher starts an append at most this often (EventLog.appendIntervalMs), so that under load
 * each append carries more requests: kafkajs's fixed cost per send (a produce request, its promises
 * and timers, the idempotent producer's bookkeeping) is the largest part of a small append's cost.
 * Figures: docs/performance.md, "The cluster node".
 */
export const APPEND_INTERVAL_MS = 50;

export class KafkaEventLog implements EventLog {
  readonly appendIntervalMs: number;
  readonly #kafka: Kafka;
  #producer: Producer;
  readonly #topics: TopicNames;
  readonly #outbox: Outbox;
  readonly #onError: (error: unknown) => void;
  readonly #settler: DoubtSettler;
  #draining: Promise<void> | null = null;
  #timer: NodeJS.Timeout | null = null;
  #connected = false;
  /** Set while Kafka refuses: one log line per outage, not one per retry. */
  #failing = false;
  /** When the latest send given up on (timed out, still in kafkajs's hands) started; 0: none. */
  #abandonedSendStart = 0;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #sendTimeoutMs: number;

  constructor(
    kafka: Kafka,
    topics: TopicNames,
    outbox: Outbox,
    settler: DoubtSettler,
    onError: (error: unknown) => void = () => {},
    {
      appendIntervalMs = APPEND_INTERVAL_MS,
      sendTimeoutMs = SEND_TIMEOUT_MS,
      sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
    }: { appendIntervalMs?: number; sendTimeoutMs?: number; sleep?: (ms: number) => Promise<void> } = {},
  ) {
    this.appendIntervalMs = appendIntervalMs;
    this.#sleep = sleep;
    this.#sendTimeoutMs = sendTimeoutMs;
    this.#kafka = kafka;
    this.#producer = this.#newProducer();
    this.#topics = topics;
    this.#outbox = outbox;
    this.#onError = onError;
    this.#settler = settler;
  }

  get outboxDepth(): number {
    return this.#outbox.size;
  }

  async start(): Promise<void> {
    this.#timer = setInterval(() => void this.drain(), 500);
    this.#timer.unref();
    await this.#connect().catch((error: unknown) => this.#onError(error));
  }

  #newProducer(): Producer {
    return this.#kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      // Not kafkajs's default: its retries would hand keyless messages to other partitions under
      // sequences already written, and the broker would drop them as duplicates (see the module).
      createPartitioner: stickyPartitioner,
      retry: { retries: 3, initialRetryTime: 100, maxRetryTime: 1000 },
    });
  }

  /**
   * After a broker restart a kafkajs producer can stay stuck on its old connection and never settle a
   * send again; a failed producer is therefore dropped and the next attempt starts a fresh one.
   */
  async #replaceProducer(): Promise<void> {
    const broken = this.#producer;
    this.#producer = this.#newProducer();
    this.#connected = false;
    await Promise.race([broken.disconnect().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 1000))]);
  }

  async #connect(): Promise<void> {
    if (this.#connected) return;
    await this.#producer.connect();
    this.#connected = true;
  }

  async #send(messages: Map<string, OutgoingMessage[]>): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    const started = Date.now();
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        timedOut = true;
        reject(new Error(`Kafka did not acknowledge within ${this.#sendTimeoutMs} ms`));
      }, this.#sendTimeoutMs);
    });
    try {
      await Promise.race([this.#sendNow(messages), timeout]);
      this.#failing = false;
    } catch (error) {
      // A send that failed by itself is over; one given up on may still land (SEND_LIFETIME_MS).
      if (timedOut) this.#abandonedSendStart = Math.max(this.#abandonedSendStart, started);
      await this.#replaceProducer();
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Waits until no send given up on can still reach the broker. */
  async #abandonedSendsOver(): Promise<void> {
    const wait = this.#abandonedSendStart + SEND_LIFETIME_MS - Date.now();
    if (wait > 0) await this.#sleep(wait);
  }

  async #sendNow(messages: Map<string, OutgoingMessage[]>): Promise<void> {
    await this.#connect();
    await this.#producer.sendBatch({
      acks: -1,
      topicMessages: [...messages].map(([topic, topicMessages]) => ({ topic, messages: topicMessages })),
    });
  }

  append(events: readonly GatewayEvent[]): Promise<void> {
    if (events.length === 0) return Promise.resolve();
    return this.#append(
      () => messagesOf(events, this.#topics),
      () => events,
    );
  }

  /** A batch of the publisher's, printed when it was cut (see printed-batches.ts). */
  serialize(events: readonly GatewayEvent[]): Uint8Array {
    return printBatch(events);
  }

  appendSerialized(batches: readonly Uint8Array[]): Promise<void> {
    if (batches.length === 0) return Promise.resolve();
    return this.#append(
      () => messagesOfPrinted(batches, this.#topics),
      () => eventsOfPrinted(batches),
    );
  }

  async #append(messages: () => Map<string, OutgoingMessage[]>, events: () => readonly GatewayEvent[]): Promise<void> {
    let sent = false;
    if (this.#outbox.size === 0) {
      try {
        sent = true;
        await this.#send(messages());
        return;
      } catch (error) {
        this.#reportFailure(error);
      }
    }
    // Durable locally before we return: the events are not lost, only late. Sent and failed, they
    // are in doubt (Kafka may have written them); queued behind others, they were never sent.
    this.#outbox.add(events(), sent);
    void this.drain();
  }

  /** Sends what the outbox holds, oldest first, until it is empty or Kafka refuses. */
  drain(): Promise<void> {
    // `.finally` runs asynchronously, so the field is cleared after it is set, even when there was
    // nothing to send (an async body with no await would clear it before the assignment).
    this.#draining ??= this.#drainOutbox().finally(() => {
      this.#draining = null;
    });
    return this.#draining;
  }

  async #drainOutbox(): Promise<void> {
    try {
      while (this.#outbox.size > 0) {
        const { events, inDoubt, through } = this.#outbox.peek(DRAIN_BATCH);
        const doubtful = events.filter((_, index) => inDoubt[index]);
        if (doubtful.length > 0) await this.#abandonedSendsOver();
        const logged = doubtful.length > 0 ? await this.#settler.alreadyLogged(doubtful) : new Set<string>();
        const unsent = events.filter((event) => !logged.has(event.eventId));
        // In doubt from here: a crash or a failure after the send began leaves them to be settled again.
        this.#outbox.markInDoubt(through);
        if (unsent.length > 0) await this.#send(messagesOf(unsent, this.#topics));
        this.#outbox.remove(through);
      }
    } catch (error) {
      this.#reportFailure(error);
    }
  }

  #reportFailure(error: unknown): void {
    if (this.#failing) return;
    this.#failing = true;
    this.#onError(error);
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
