/**
 * @module bench/report
 * Turns one bench run into figures: a console summary, a Markdown report (tables, the targets
 * as ratios marked met or missed, machine, versions, commands) and a bar chart, drawn as SVG and
 * rendered to PNG with headless Chromium (the SVG is kept when no Chromium is installed).
 */
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AgentWorkloadsResult } from './agent-workloads.ts';
import type { StreamShape } from './fake-upstream.ts';
import type { HoldResult, LatencyResult, StreamResult } from './load.ts';
import type { PairedResult } from './paired.ts';
import type { PairedLatencyResult } from './paired-latency.ts';
import type { OverviewResult, ProjectorResult } from './pipeline.ts';
import type { ClickHousePipeline, ClickHousePlan } from './pipeline-clickhouse.ts';
import { WORK } from './processes.ts';
import type { ProfileSummary } from './profile.ts';
import { agentGoals, agentSection } from './report-agents.ts';
import { chartSvg, renderPng } from './report-chart.ts';
import { added, measured } from './report-figures.ts';
import { formatSection, pairedSection } from './report-formats.ts';
import { evaluateGoals } from './report-goals.ts';
import { pipelineSection, pipelineSummary } from './report-pipeline.ts';
import { sustainedSection, sustainedSummary } from './report-sustained.ts';
import { fixed, mark, megabytes, signed, table, whole } from './report-text.ts';
import type { SustainedPhase } from './sustained-run.ts';

export type Format = 'openai' | 'anthropic';

export interface Plan {
  warmupMs: number;
  latencyMs: number;
  throughputMs: number;
  concurrency: number;
  streamWarmupMs: number;
  streamMs: number;
  streamShape: StreamShape;
  holdStreams: number;
  holdShape: StreamShape;
  formats: Format[];
  profileMs: number;
  projectorRequests: number;
  overviewRequests: number;
  overviewRuns: number;
  overviewBudgetMs: number;
  clickhouse: ClickHousePlan;
}

export interface FormatResult {
  latency: LatencyResult;
  /**
   * `mainThreadCpuMsPerRequest`: the target's own main thread only (the JavaScript event loop); the
   * rest of `cpuMsPerRequest` is its other threads (a store worker, GC helpers) and child processes.
   * Absent in results saved before it was measured.
   */
  throughput: LatencyResult & {
    cpuMsPerRequest: number;
    mainThreadCpuMsPerRequest?: number;
    /** CPU ms per request of the processes beside the target (RunningTarget.companions), by name */
    companionsCpuMsPerRequest?: Record<string, number>;
  };
  stream: StreamResult;
  hold: HoldResult | null;
}

export interface TargetResult {
  id: string;
  label: string;
  role: 'upstream' | 'ceiling' | 'gateway' | 'peer';
  status: 'ok' | 'skipped' | 'failed';
  reason?: string;
  version: string;
  installSeconds: number;
  startSeconds: number;
  formats: Partial<Record<Format, FormatResult>>;
  formatErrors?: Partial<Record<Format, string>>;
}

export interface PipelineResults {
  sqlite: { projector: ProjectorResult; overview: OverviewResult } | null;
  clickhouse: ClickHousePipeline;
}

export interface BenchResults {
  quick: boolean;
  startedAt: string;
  seconds: number;
  loadBefore: number[];
  loadAfter: number[];
  command: string;
  plan: Plan;
  targets: TargetResult[];
  pipeline: PipelineResults | null;
  profile: { file: string; flameGraph: string; workload: string; summary: ProfileSummary } | null;
  /** throughput ratios from alternating windows (absent in quick runs and older saved results) */
  paired?: PairedResult[];
  /** added latency at c=1 from windows alternating with the ceiling's (absent in quick runs and older saved results) */
  pairedLatency?: PairedLatencyResult[];
  /** agent-sized bodies beside the parse and Node ceilings (absent in older saved results) */
  agents?: AgentWorkloadsResult | null;
  /** the gateway under sustained load beside a CPU hog (absent in older saved results) */
  sustained?: SustainedPhase | null;
  errors: string[];
}

export interface Goal {
  goal: string;
  measured: string;
  met: boolean | null;
}

function profileSection(bench: BenchResults, flame: string | null): string {
  if (!bench.profile) return '';
  const { summary, workload, file } = bench.profile;
  const rows = (list: ProfileSummary['topSelf'], count: number) =>
    table(
      ['% of busy', 'ms', 'function', 'where'],
      list
        .slice(0, count)
        .map((row) => [fixed(row.percent, 1), whole(row.ms), `\`${row.name}\``, row.where ? `\`${row.where}\`` : '']),
      [2, 3],
    );
  return [
    '## Where the gateway spends its CPU',
    '',
    `A separate gateway process ran under \`node --cpu-prof\` with ${workload} for ${(bench.plan.profileMs / 1000).toFixed(0)} s (${(summary.busyMs / 1000).toFixed(1)} s of ${(summary.totalMs / 1000).toFixed(1)} s sampled were busy; percentages are of busy time; start-up and warm-up are left out). The profile is \`${file}\` (git-ignored; open it in Chrome DevTools or speedscope); \`npx tsx bench/profile.ts ${file}\` prints this summary again.`,
    '',
    ...(flame ? [`Flame graph (hover a box for its function and share): [${flame}](${flame})`, ''] : []),
    'Self time by function:',
    '',
    rows(summary.topSelf, 15),
    '',
    'Self time by module or package:',
    '',
    rows(summary.byModule, 12),
    '',
    'Inclusive time of the repository’s own functions:',
    '',
    rows(summary.ownInclusive, 15),
    '',
  ].join('\n');
}

function machineLines(bench: BenchResults): string[] {
  const cpus = os.cpus();
  return [
    `- Machine: ${cpus.length} × ${cpus[0]?.model ?? 'unknown CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.type()} ${os.release()} (${os.arch()})`,
    `- Load average (1, 5, 15 min) at the start: ${bench.loadBefore.map((value) => value.toFixed(2)).join(', ')}; at the end: ${bench.loadAfter.map((value) => value.toFixed(2)).join(', ')}. The load generator, the upstream and the target share the cores, and other processes may have been running on this machine during the run (it is shared with other work), so compare figures within this run only.`,
    `- Node ${process.version}; run started ${bench.startedAt}, took ${fixed(bench.seconds, 0)} s.`,
  ];
}

export function markdown(bench: BenchResults, chart: string | null, flame: string | null = null): string {
  const goals = evaluateGoals(bench);
  const plan = bench.plan;
  const versions = bench.targets.map((target) => {
    if (target.status === 'ok') {
      const install = target.installSeconds ? `, installed in ${fixed(target.installSeconds, 0)} s this run` : '';
      return `- ${target.label}: ${target.version} (started in ${fixed(target.startSeconds, 1)} s${install})`;
    }
    return `- ${target.label}: ${target.status === 'skipped' ? '' : 'FAILED: '}${target.reason ?? ''}`;
  });
  return [
    '# Benchmarks',
    '',
    `Generated by \`${bench.command}\` (\`bench/run.ts\`); do not edit by hand. One run on one machine: every target is measured against the same fast fake upstream (\`bench/fake-upstream.ts\`), one after the other, so only the ratios and differences within this run mean anything.`,
    '',
    ...machineLines(bench),
    '',
    '## Targets, gateway with key checks, validation and events on',
    '',
    table(
      ['target', 'measured', 'result'],
      goals.map((goal) => [goal.goal, goal.measured, mark(goal.met)]),
      [1, 2],
    ),
    '',
    'For each target missed: where the time goes, why, and the next step, in [performance.md](performance.md) (written by hand from these figures, the thread split of `bench/thread-cpu.ts` and A/B runs).',
    '',
    ...(chart ? [`![Throughput, added latency and memory per target](${chart})`, ''] : []),
    '## What was measured',
    '',
    ...versions,
    '',
    `Added figures (latency at c=1, time to first token, gap between tokens) are paired: every request or stream sent to a target follows the same one sent straight to the upstream, and the added figure is the target's percentile minus the direct requests' percentile over the same interleaved window, so a busy moment of the machine slows both sides. c=1: one client, ${plan.latencyMs / 1000} s after ${plan.warmupMs / 1000} s of warm-up. c=${plan.concurrency}: ${plan.concurrency} clients in a closed loop for ${plan.throughputMs / 1000} s after ${plan.warmupMs / 1000} s of warm-up; CPU ms/req is the CPU time of the target's process tree over that run divided by its requests, and the next column the part of it spent on the target's main thread (its event loop; the rest is its other threads, such as the gateway's store worker and V8's GC helpers, and child processes such as LiteLLM's workers). On ${os.cpus().length} cores shared by the load generator, the upstream and the target, throughput at c=${plan.concurrency} follows the target's whole CPU per request, not its main thread alone. The load generator is undici in the bench process; the target and the upstream each run in their own process.`,
    bench.pairedLatency?.length
      ? `The added p50 and p99 targets at c=1 are judged on alternating windows instead: each gateway mode ran beside the Node ceiling, ${bench.pairedLatency[0]!.gateway.p50.length} c=1 windows of ${bench.pairedLatency[0]!.windowMs / 1000} s each alternated between them (which went first alternated too), every window paired with direct requests as above, and the figure is the median of the windows (\`bench/paired-latency.ts\`); the single windows of the tables below are shown beside it. The embedded node's rounds also alternate c=1 stream windows between the two, each stream after the same one sent straight to the upstream, and its added time to first token is judged on their median the same way. The cluster node's pairing alternates two arrangements in the same rounds: every process sharing every CPU, and the cluster's servers (Kafka, ClickHouse, Redis and the projector) on CPUs of their own with the request's path (the load generator, the upstream, the node and the ceiling) on the others, set with \`taskset\` (\`bench/cpu-placement.ts\`); its targets are judged on the second, as a deployment keeps a node apart from its servers, with the first beside it.`
      : '',
    '',
    pairedSection(bench),
    formatSection(bench, 'openai'),
    formatSection(bench, 'anthropic'),
    ...(bench.agents ? agentSection(bench.agents) : []),
    sustainedSection(bench.sustained),
    pipelineSection(bench),
    profileSection(bench, flame),
    '## How to run it',
    '',
    '```sh',
    'npm run bench          # full run, about 13 minutes here (+2.5 when it installs LiteLLM): writes docs/benchmarks.*',
    'npm run bench:quick    # about a minute and a half, no LiteLLM; prints the figures (CI runs it; any non-2xx fails it)',
    'npm run bench -- --only=upstream,ceiling,gateway --no-pipeline --no-profile --out=.bench',
    '```',
    '',
    '- Portkey is installed on first use with `npm ci --prefix bench/peers/portkey` (pinned in `bench/peers/portkey/package-lock.json`), started with `node …/@portkey-ai/gateway/build/start-server.js --port=<port> --headless`, and called with `x-portkey-provider` and `x-portkey-custom-host` pointing at the fake upstream.',
    "- LiteLLM is installed on first use with `python3 -m venv .bench/litellm-venv && .bench/litellm-venv/bin/pip install 'litellm[proxy]==<pinned>'` (see `bench/targets.ts`), and started with `litellm --config .bench/litellm-config.yaml --num_workers 2`: two models pointing at the fake upstream, no database, no master key, no callbacks, no retries.",
    "- The gateway runs as `npm start` runs it: the bundle `dist/gateway/main.js` (built at the start of the run) with the environment and Node flags of package.json's start script, on a fresh temporary `DATA_DIR` (embedded SQLite store, events on), with an OpenAI, an Anthropic and a Gemini channel on the fake upstream, and a user and key created through the console API (`bench/gateway-targets.ts`).",
    '- Peers run as configured here, without key checks (Portkey has no key store; LiteLLM has no master key or database), so they do less work per request than the gateway. Portkey 1.15.2 holds the first chunk of every stream for 25 ms (a `setTimeout(…, 25)` in its stream reader), which sets a floor under its time to first token; its `@hono/node-server` is pinned to 1.13.8 because later releases make Portkey answer every streamed request with a 500.',
    '- The gateway (cluster) entry runs when `KAFKA_BROKERS`, `CLICKHOUSE_URL` and `REDIS_URL` are set (`eval "$(scripts/services up)"` starts the three servers and sets them): the same bundle with `--role=gateway`, beside a projector process; otherwise it is reported as not available.',
    '',
    ...(bench.errors.length ? ['## Errors in this run', '', ...bench.errors.map((error) => `- ${error}`), ''] : []),
  ].join('\n');
}

/** Writes the report (Markdown, SVG, PNG) into `directory`; returns the files written. */
export async function writeReport(bench: BenchResults, directory: string): Promise<string[]> {
  mkdirSync(directory, { recursive: true });
  const name = bench.quick ? 'quick-report' : 'benchmarks';
  const written: string[] = [];
  const svg = chartSvg(bench);
  const svgFile = path.join(bench.quick ? directory : path.join(WORK, 'tmp'), `${name}.svg`);
  writeFileSync(svgFile, svg);
  let chart: string | null = null;
  if (!bench.quick) {
    const pngFile = path.join(directory, `${name}.png`);
    let rendered = false;
    try {
      rendered = renderPng(svg, pngFile);
    } catch (error) {
      console.error(`chart: Chromium could not render the PNG: ${String(error).slice(0, 300)}`);
    }
    if (rendered) {
      chart = `${name}.png`;
      written.push(pngFile);
    } else {
      const fallback = path.join(directory, `${name}.svg`);
      writeFileSync(fallback, svg);
      chart = `${name}.svg`;
      written.push(fallback);
    }
  } else written.push(svgFile);
  let flame: string | null = null;
  if (bench.profile && existsSync(bench.profile.flameGraph)) {
    flame = `${name}-gateway-flame.svg`;
    copyFileSync(bench.profile.flameGraph, path.join(directory, flame));
    written.push(path.join(directory, flame));
  }
  const file = path.join(directory, `${name}.md`);
  writeFileSync(file, markdown(bench, chart, flame));
  written.push(file);
  writeFileSync(path.join(WORK, `${name}.json`), JSON.stringify(bench, null, 2));
  return written;
}

/** The figures on the console: one line per target, then the targets. */
export function printSummary(bench: BenchResults): void {
  const lines: string[] = ['', `== bench results (${bench.quick ? 'quick' : 'full'} run, ${os.cpus().length} cores)`];
  for (const format of bench.plan.formats) {
    const rows = measured(bench, format);
    if (rows.length === 0) continue;
    lines.push(`-- ${format}`);
    lines.push(
      `${'target'.padEnd(22)} ${'c1 p50'.padStart(8)} ${'c1 p99'.padStart(8)} ${'+p99'.padStart(7)} ${'req/s'.padStart(8)} ${'c64 p99'.padStart(8)} ${'cpu/req'.padStart(8)} ${'TTFT'.padStart(7)} ${'+TTFT'.padStart(7)} ${'gap'.padStart(6)} ${'RSS MB'.padStart(7)} ${'failed'.padStart(6)}`,
    );
    for (const [target, result] of rows) {
      const add = added(bench, result, format);
      const failed =
        result.latency.errors + result.throughput.errors + result.stream.errors + (result.hold?.errors ?? 0);
      lines.push(
        `${target.label.padEnd(22)} ${fixed(result.latency.p50).padStart(8)} ${fixed(result.latency.p99).padStart(8)} ${(target.id === 'upstream' ? '' : signed(add.p99)).padStart(7)} ${whole(result.throughput.rps).padStart(8)} ${fixed(result.throughput.p99).padStart(8)} ${fixed(result.throughput.cpuMsPerRequest, 3).padStart(8)} ${fixed(result.stream.ttft.p50).padStart(7)} ${(target.id === 'upstream' ? '' : signed(add.ttft50)).padStart(7)} ${fixed(result.stream.gap.p50).padStart(6)} ${megabytes(result.hold?.peakRss).padStart(7)} ${String(failed).padStart(6)}`,
      );
    }
  }
  for (const target of bench.targets.filter((target) => target.status !== 'ok')) {
    lines.push(`${target.label}: ${target.status === 'failed' ? 'FAILED: ' : ''}${target.reason}`);
  }
  lines.push(...sustainedSummary(bench.sustained));
  lines.push(...pipelineSummary(bench));
  lines.push('-- targets');
  for (const goal of evaluateGoals(bench)) {
    lines.push(`  ${(goal.met === null ? '—' : goal.met ? 'met' : 'MISSED').padEnd(7)} ${goal.goal}: ${goal.measured}`);
  }
  for (const goal of bench.agents ? agentGoals(bench.agents) : []) {
    lines.push(
      `  ${(goal.met ? 'met' : 'MISSED').padEnd(7)} agent ${goal.label} ${goal.limit}: ${fixed(goal.measured)}`,
    );
  }
  console.log(lines.join('\n'));
}
