/**
 * @module bench/pipeline
 * The event pipeline's figures on the embedded store (SQLite), with a data generator:
 *
 * - projector throughput: N requests' `request.completed` + `usage.recorded` events are appended to a
 *   fresh store's event log in publisher-sized batches (500), then the in-process projector catches up
 *   on all of them at once; events per second of each step are reported.
 * - overview latency: M requests are generated straight through the projection writer (the same code
 *   the projector runs, in transactions of 10,000 events, skipping the JSON event log to save time),
 *   then `usage.overview` is timed for all users and for the busiest user over the last 30 days.
 *
 * The ClickHouse figures belong to the cluster mode and are reported as not available until it exists.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { GatewayEvent } from '../contracts/events/index.ts';
import { newEvent } from '../gateway/events/new-event.ts';
import { openDatabase } from '../stores/embedded/database.ts';
import { EmbeddedEngine } from '../stores/embedded/engine.ts';
import type { PositionedEvent } from '../stores/embedded/event-log.ts';
import { SqliteProjectionWriter } from '../stores/embedded/projection-writer.ts';
import { SqliteUsageQueries } from '../stores/embedded/usage-queries.ts';
import { MemoryLookups } from '../stores/memory-lookups.ts';
import { Samples } from './load.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const MODELS = [
  { model: 'gpt-4o-mini', channel: 'ch-openai' },
  { model: 'gpt-4o', channel: 'ch-openai' },
  { model: 'claude-sonnet-4-5', channel: 'ch-anthropic' },
  { model: 'claude-haiku-4-5', channel: 'ch-anthropic' },
  { model: 'deepseek-chat', channel: 'ch-deepseek' },
];

/** A deterministic generator of plausible traffic: a few heavy users, most of them light. */
export class TrafficGenerator {
  readonly users: number;
  #now: number;
  #spanMs = 30 * DAY;
  #seed = 0x9e3779b9;
  #sequence = 0;

  constructor(users: number, now = Date.now()) {
    this.users = users;
    this.#now = now;
  }

  /** Draws the next requests' times in the `spanMs` before `end` (by default the 30 days before now). */
  within(end: number, spanMs: number): void {
    this.#now = end;
    this.#spanMs = spanMs;
  }

  #random(): number {
    // mulberry32
    this.#seed = (this.#seed + 0x6d2b79f5) | 0;
    let t = this.#seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** The two events of one request somewhere in the last 30 days. */
  request(): [GatewayEvent, GatewayEvent] {
    const user = Math.floor(this.users * this.#random() ** 3);
    const userId = `user-${user}`;
    const tokenId = `token-${user}-${Math.floor(this.#random() * 2)}`;
    const { model, channel } = MODELS[Math.floor(this.#random() ** 2 * MODELS.length)]!;
    const started = new Date(this.#now - Math.floor(this.#random() * this.#spanMs));
    const startedAt = started.toISOString();
    const requestId = `req-${(this.#sequence++).toString(36)}`;
    const failed = this.#random() < 0.02;
    const stream = this.#random() < 0.5;
    const promptTokens = 20 + Math.floor(this.#random() * 2000);
    const completionTokens = failed ? 0 : 5 + Math.floor(this.#random() * 800);
    const completed = newEvent(
      'request.completed',
      {
        requestId,
        userId,
        tokenId,
        endpoint: model.startsWith('claude') ? 'messages' : 'chat.completions',
        modelRequested: model,
        modelServed: model,
        channelId: channel,
        stream,
        status: failed ? 502 : 200,
        errorType: failed ? 'upstream_error' : null,
        errorMessage: failed ? 'The upstream provider failed.' : null,
        startedAt,
        latencyMs: 200 + this.#random() * 3000,
        firstTokenMs: stream ? 100 + this.#random() * 500 : null,
        clientAborted: false,
      },
      started,
    );
    const usage = newEvent(
      'usage.recorded',
      {
        requestId,
        userId,
        tokenId,
        channelId: channel,
        model,
        startedAt,
        promptTokens,
        completionTokens,
        cachedTokens: 0,
        cacheWriteTokens: 0,
        reasoningTokens: 0,
        source: 'upstream',
        costNanoUsd: null,
        price: null,
      },
      started,
    );
    return [completed, usage];
  }
}

export interface ProjectorResult {
  requests: number;
  events: number;
  appendSeconds: number;
  appendEventsPerSecond: number;
  projectSeconds: number;
  projectEventsPerSecond: number;
}

export async function measureSqliteProjector(requests: number): Promise<ProjectorResult> {
  const directory = mkdtempSync(path.join(tmpdir(), 'bench-projector-'));
  try {
    // The engine the store worker runs, driven directly: the figures are SQLite's, not the thread hop's.
    const engine = new EmbeddedEngine(directory);
    engine.open();
    const generator = new TrafficGenerator(200);
    const batches: GatewayEvent[][] = [];
    for (let done = 0; done < requests; ) {
      const batch: GatewayEvent[] = [];
      for (; batch.length < 500 && done < requests; done++) batch.push(...generator.request());
      batches.push(batch);
    }
    const events = batches.reduce((sum, batch) => sum + batch.length, 0);
    // Every batch is appended first, then the projector is run once, on its own, and timed.
    const appendStart = performance.now();
    for (const batch of batches) engine.append(batch);
    const appendSeconds = (performance.now() - appendStart) / 1000;
    const projectStart = performance.now();
    const applied = engine.catchUp();
    const projectSeconds = (performance.now() - projectStart) / 1000;
    if (applied !== events) throw new Error(`the projector applied ${applied} of ${events} events`);
    engine.close();
    return {
      requests,
      events,
      appendSeconds,
      appendEventsPerSecond: events / appendSeconds,
      projectSeconds,
      projectEventsPerSecond: events / projectSeconds,
    };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

export interface OverviewResult {
  requests: number;
  generateSeconds: number;
  rollupRows: number;
  databaseMegabytes: number;
  allUsers: { p50: number; p95: number; runs: number };
  oneUser: { p50: number; p95: number; runs: number };
  method: string;
}

/** Times `usage.overview` up to `runs` times, or for `budgetMs` of each query kind (at least 5 runs). */
export async function measureSqliteOverview(
  requests: number,
  runs: number,
  budgetMs = 30_000,
): Promise<OverviewResult> {
  const directory = mkdtempSync(path.join(tmpdir(), 'bench-overview-'));
  try {
    const database = openDatabase(directory);
    const writer = new SqliteProjectionWriter(database, new MemoryLookups());
    const now = Date.now();
    const generator = new TrafficGenerator(200, now);
    const generateStart = performance.now();
    let position = 0;
    for (let done = 0; done < requests; ) {
      const batch: PositionedEvent[] = [];
      for (; batch.length < 10_000 && done < requests; done++) {
        for (const event of generator.request()) batch.push({ position: ++position, event });
      }
      writer.apply(batch);
    }
    const generateSeconds = (performance.now() - generateStart) / 1000;
    const rollupRows = (database.prepare('SELECT count(*) FROM usage_hourly').pluck().get() as number) ?? 0;
    const pages = database.pragma('page_count', { simple: true }) as number;
    const pageSize = database.pragma('page_size', { simple: true }) as number;
    const busiest = database
      .prepare('SELECT user_id FROM usage_hourly GROUP BY user_id ORDER BY sum(calls) DESC LIMIT 1')
      .pluck()
      .get() as string;
    const queries = new SqliteUsageQueries(database);
    const range = { from: new Date(now - 30 * DAY).toISOString(), to: new Date(now).toISOString() };
    const time = async (userId: string | null) => {
      const samples = new Samples();
      await queries.overview({ ...range, userId });
      const deadline = performance.now() + budgetMs;
      for (let run = 0; run < runs && (run < 5 || performance.now() < deadline); run++) {
        const start = performance.now();
        const overview = await queries.overview({ ...range, userId });
        samples.add(performance.now() - start);
        if (overview.totals.calls === 0) throw new Error('the overview found no calls');
      }
      return { p50: samples.quantile(0.5), p95: samples.quantile(0.95), runs: samples.count };
    };
    const allUsers = await time(null);
    const oneUser = await time(busiest);
    database.close();
    return {
      requests,
      generateSeconds,
      rollupRows,
      databaseMegabytes: (pages * pageSize) / 1e6,
      allUsers,
      oneUser,
      method:
        'generated through the projection writer (the projector’s own code) in 10,000-event transactions, bypassing the JSON event log',
    };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** The ClickHouse side: a pluggable entry, reported as not available until it has a bench of its own. */
export function clickhouseUnavailable(): string | null {
  const { KAFKA_BROKERS, CLICKHOUSE_URL, REDIS_URL } = process.env;
  if (!KAFKA_BROKERS || !CLICKHOUSE_URL || !REDIS_URL) {
    return 'not available: cluster mode not configured (KAFKA_BROKERS, CLICKHOUSE_URL and REDIS_URL unset)';
  }
  return 'not available: the ClickHouse projector and overview have no bench entry yet';
}
