/**
 * @module gateway/metrics
 * Prometheus metrics on their own registry (nothing global), served at GET /metrics. Requests are
 * observed once, when they end, from the request record; label values are positional so the hot path
 * allocates no label objects. `model` is the requested model only when a channel served it (else
 * `-`), so clients cannot grow the label set with made-up names.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Stores } from '../stores/ports.ts';
import type { EventPublisher } from './events/publisher.ts';
import type { RequestRecord } from './relay/request-record.ts';

const LATENCY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300];
const TTFT_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30];

/** The labelled children one request's end touches. */
interface Series {
  requests: { inc(value?: number): void };
  duration: { observe(value: number): void };
  timeToFirstToken: { observe(value: number): void };
  promptTokens: { inc(value?: number): void };
  completionTokens: { inc(value?: number): void };
}

export class GatewayMetrics {
  readonly registry = new Registry();
  readonly #requests;
  readonly #duration;
  readonly #timeToFirstToken;
  readonly #tokens;
  readonly #upstreamErrors;
  readonly #series = new Map<string, Series>();

  constructor(sources: { publisher: EventPublisher; stores: Stores }) {
    const registers = [this.registry];
    const requestLabels = ['endpoint', 'model', 'channel', 'status'] as const;
    this.#requests = new Counter({
      name: 'gateway_requests_total',
      help: 'Relayed requests by endpoint, model, channel and HTTP status',
      labelNames: requestLabels,
      registers,
    });
    this.#duration = new Histogram({
      name: 'gateway_request_duration_seconds',
      help: 'Whole request latency, until the last byte of the reply',
      labelNames: requestLabels,
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.#timeToFirstToken = new Histogram({
      name: 'gateway_time_to_first_token_seconds',
      help: 'Time from the request to the first content from the upstream',
      labelNames: requestLabels,
      buckets: TTFT_BUCKETS,
      registers,
    });
    this.#tokens = new Counter({
      name: 'gateway_tokens_total',
      help: 'Tokens by endpoint, model, channel and kind (prompt or completion)',
      labelNames: ['endpoint', 'model', 'channel', 'kind'] as const,
      registers,
    });
    this.#upstreamErrors = new Counter({
      name: 'gateway_upstream_errors_total',
      help: 'Failed upstream attempts by channel and kind (unreachable, timeout, rate_limited, server_error, client_error)',
      labelNames: ['channel', 'kind'] as const,
      registers,
    });
    new Gauge({
      name: 'gateway_event_queue_depth',
      help: 'Events published by this node and not yet appended to the event log',
      registers,
      collect() {
        this.set(sources.publisher.depth);
      },
    });
    const backlog = () => sources.stores.backlog().catch(() => ({ outboxDepth: null, projectorLagEvents: null }));
    new Gauge({
      name: 'gateway_outbox_depth',
      help: 'Events spooled in the local outbox while Kafka is unreachable (cluster mode)',
      registers,
      async collect() {
        this.set((await backlog()).outboxDepth ?? 0);
      },
    });
    new Gauge({
      name: 'gateway_projector_lag_events',
      help: 'Events in the log not yet applied by the in-process projector (embedded mode)',
      registers,
      async collect() {
        this.set((await backlog()).projectorLagEvents ?? 0);
      },
    });
    collectDefaultMetrics({ register: this.registry, prefix: 'gateway_process_' });
  }

  observe(record: RequestRecord, latencySeconds: number): void {
    const channel = record.channelName ?? '-';
    const model = record.channelName ? (record.modelRequested ?? '-') : '-';
    const status = String(record.status === 200 && record.errorType ? 'stream_error' : record.status);
    const series = this.#seriesOf(record.endpoint, model, channel, status);
    series.requests.inc();
    series.duration.observe(latencySeconds);
    if (record.firstTokenMs !== null) series.timeToFirstToken.observe(record.firstTokenMs / 1000);
    const usage = record.usage;
    if (usage) {
      if (usage.promptTokens > 0) series.promptTokens.inc(usage.promptTokens);
      if (usage.completionTokens > 0) series.completionTokens.inc(usage.completionTokens);
    }
  }

  /**
   * The labelled children of one label combination, kept: prom-client's `labels()` validates and
   * hashes the values on every call, a cost paid per request otherwise. The combinations are bounded
   * (see the module comment), so the map is too.
   */
  #seriesOf(endpoint: string, model: string, channel: string, status: string): Series {
    const key = `${endpoint}\u0000${model}\u0000${channel}\u0000${status}`;
    let series = this.#series.get(key);
    if (!series) {
      series = {
        requests: this.#requests.labels(endpoint, model, channel, status),
        duration: this.#duration.labels(endpoint, model, channel, status),
        timeToFirstToken: this.#timeToFirstToken.labels(endpoint, model, channel, status),
        promptTokens: this.#tokens.labels(endpoint, model, channel, 'prompt'),
        completionTokens: this.#tokens.labels(endpoint, model, channel, 'completion'),
      };
      this.#series.set(key, series);
    }
    return series;
  }

  upstreamError(channel: string, kind: string): void {
    this.#upstreamErrors.labels(channel, kind).inc();
  }
}
