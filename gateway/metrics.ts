/**
 * @module gateway/metrics
 * Prometheus metrics on their own registry (nothing global), served at GET /metrics. Requests are
 * observed once, when they end, from the request record, into plain fields that the registry reads
 * when scraped (request-metrics.ts). `model` is the requested model only when a channel served it (else
 * `-`), so clients cannot grow the label set with made-up names.
 */
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { Stores } from '../stores/ports.ts';
import type { EventPublisher } from './events/publisher.ts';
import type { RequestRecord } from './relay/request-record.ts';
import { RequestSeriesTable } from './request-metrics.ts';

const LATENCY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300];
const TTFT_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30];

export class GatewayMetrics {
  readonly registry = new Registry();
  readonly #requests: RequestSeriesTable;
  readonly #upstreamErrors;

  constructor(sources: { publisher: EventPublisher; stores: Stores }) {
    const registers = [this.registry];
    this.#requests = new RequestSeriesTable(
      {
        requests: {
          name: 'gateway_requests_total',
          help: 'Relayed requests by endpoint, model, channel and HTTP status',
        },
        duration: {
          name: 'gateway_request_duration_seconds',
          help: 'Whole request latency, until the last byte of the reply',
          buckets: LATENCY_BUCKETS,
        },
        timeToFirstToken: {
          name: 'gateway_time_to_first_token_seconds',
          help: 'Time from the request to the first content from the upstream',
          buckets: TTFT_BUCKETS,
        },
        tokens: {
          name: 'gateway_tokens_total',
          help: 'Tokens by endpoint, model, channel and kind (prompt or completion)',
        },
        cost: {
          name: 'gateway_cost_usd_total',
          help: 'USD spent by endpoint, model and channel, at the prices in force (unpriced requests add nothing)',
        },
      },
      this.registry,
    );
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
    const series = this.#requests.of(record.endpoint, model, channel, status);
    series.requests++;
    series.duration.observe(latencySeconds);
    if (record.firstTokenMs !== null) series.timeToFirstToken.observe(record.firstTokenMs / 1000);
    const usage = record.usage;
    if (usage) {
      series.promptTokens += usage.promptTokens;
      series.completionTokens += usage.completionTokens;
    }
    if (record.costNanoUsd !== null) series.costNanoUsd += record.costNanoUsd;
  }

  upstreamError(channel: string, kind: string): void {
    this.#upstreamErrors.labels(channel, kind).inc();
  }
}
