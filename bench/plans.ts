/**
 * @module bench/plans
 * How long each phase of `npm run bench` runs, quick (`--quick`, CI) and full: the per-target
 * measurements, the alternating windows of the ratios and of the added latency, and the agent
 * workloads.
 */
import { type AgentPlan, fullWorkloads, quickWorkloads } from './agent-plan.ts';
import type { Plan } from './report.ts';

/** The timed phases of a quick run (CI, under two minutes) and of a full run. */
export function runPlan(quick: boolean): Plan {
  return quick
    ? {
        warmupMs: 300,
        latencyMs: 1000,
        throughputMs: 1500,
        concurrency: 64,
        streamWarmupMs: 200,
        streamMs: 1000,
        streamShape: { chunks: 6, delayMs: 5 },
        holdStreams: 1000,
        holdShape: { chunks: 10, delayMs: 200 },
        formats: ['openai'],
        profileMs: 5000,
        projectorRequests: 5_000,
        overviewRequests: 10_000,
        overviewRuns: 10,
        overviewBudgetMs: 1_000,
        clickhouse: {
          projectorRequests: 10_000,
          projectorSustainSeconds: 10,
          overviewRequests: 200_000,
          overviewRuns: 5,
          overviewBudgetMs: 1_000,
          liveWrites: { fillLevels: [0, 100_000], writeRequests: 600, writes: 3 },
        },
      }
    : {
        warmupMs: 5000,
        latencyMs: 5000,
        throughputMs: 10_000,
        concurrency: 64,
        streamWarmupMs: 1000,
        streamMs: 8000,
        streamShape: { chunks: 6, delayMs: 5 },
        holdStreams: 1000,
        holdShape: { chunks: 20, delayMs: 250 },
        formats: ['openai', 'anthropic'],
        profileMs: 10_000,
        projectorRequests: 100_000,
        overviewRequests: 1_000_000,
        overviewRuns: 20,
        overviewBudgetMs: 60_000,
        clickhouse: {
          // 6 million events: more than 60 s of work up to 100,000 events/s. A fast host drained the
          // earlier 3.6 million in 42 s (83,693 events/s), too short a span for the target to be judged.
          projectorRequests: 3_000_000,
          projectorSustainSeconds: 60,
          overviewRequests: 10_000_000,
          // A 95th percentile of 20 runs is their second slowest; of 60, their fourth.
          overviewRuns: 60,
          overviewBudgetMs: 60_000,
          // A steady 600 requests/s: about 2 million requests in an hour.
          liveWrites: { fillLevels: [0, 500_000, 2_000_000], writeRequests: 600, writes: 5 },
        },
      };
}

/** Alternating c=64 windows for the ratios (full runs only); one pair's ratio moves by ±0.1 here. */
export const PAIRED = { rounds: 7, windowMs: 3000, windowWarmupMs: 1000, warmupMs: 2000, concurrency: 64 };

/** Alternating c=1 windows for the added latency (full runs only): a 99th percentile needs a few thousand requests a window. */
export const PAIRED_LATENCY = {
  rounds: 7,
  windowMs: 4000,
  windowWarmupMs: 500,
  warmupMs: 2000,
  clusterSettleMs: 1500,
  // A stream lasts about 30 ms and follows one straight to the upstream: about 60 streams a window.
  streamWindowMs: 4000,
  streamWindowWarmupMs: 300,
};

/** The agent workloads: 22 in a full run (about seven minutes), three in a quick one. */
export function agentPlan(quick: boolean): AgentPlan {
  return quick
    ? { rounds: 1, windowMs: 1000, windowWarmupMs: 300, concurrency: 32, workloads: quickWorkloads() }
    : { rounds: 3, windowMs: 1500, windowWarmupMs: 500, concurrency: 32, workloads: fullWorkloads() };
}
