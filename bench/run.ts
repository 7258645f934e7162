/**
 * @module bench/run
 * `npm run bench` (full, writes docs/benchmarks.md and docs/benchmarks.png) and `npm run bench:quick`
 * (under a minute, prints the figures and writes .bench/quick-report.md; CI runs it). One run, one
 * machine: the fast fake upstream, the Node ceiling, the gateway and the peers are measured one after
 * the other against the same upstream, so only ratios within a run mean anything.
 *
 * Options: --quick, --only=upstream,ceiling,gateway,… (ids), --profile (also in quick mode), --no-profile,
 * --no-pipeline, --no-peers, --no-sustained, --no-agents, --scale=<factor> (shorter timed phases, for trying it out),
 * --render=.bench/benchmarks.json (write the report again from the last run's saved results),
 * --out=<dir> (where the report goes; default docs/ for a full run).
 *
 * Exit code: 1 when something errored in the upstream, the ceiling, the gateway, the pipeline or the
 * report (a failed request counts); a peer that cannot be installed or started is reported, not fatal;
 * a missed target never fails the run.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type AgentWorkloadsResult, measureAgentWorkloads } from './agent-workloads.ts';
import { gatewayClusterTarget, gatewayEmbeddedTarget } from './gateway-targets.ts';
import { closedLoop, holdStreams, type LoadOptions, streamLoop } from './load.ts';
import { measurePipeline } from './measure-pipeline.ts';
import { measurePaired, type PairedResult } from './paired.ts';
import { measurePairedLatency, type PairedLatencyResult } from './paired-latency.ts';
import { agentPlan, PAIRED, PAIRED_LATENCY, runPlan } from './plans.ts';
import { forkTs, ROOT, threadCpuMs, treeCpuMs, treeRss, WORK } from './processes.ts';
import { profileGateway } from './profile-run.ts';
import {
  type BenchResults,
  type FormatResult,
  type PipelineResults,
  type Plan,
  printSummary,
  type TargetResult,
  writeReport,
} from './report.ts';
import { type SustainedPhase, sustainedPhase } from './sustained-run.ts';
import {
  type BenchContext,
  ceilingTarget,
  configureUpstream,
  ensureWorkDirectories,
  litellmTarget,
  NotAvailable,
  portkeyTarget,
  type RunningTarget,
  requestShape,
  type Target,
  upstreamTarget,
} from './targets.ts';

const argv = process.argv.slice(2);
const option = (name: string) => argv.find((value) => value.startsWith(`--${name}=`))?.split('=')[1];
const quick = argv.includes('--quick');
const only = option('only')?.split(',');
const withPeers = !argv.includes('--no-peers');
const withPipeline = !argv.includes('--no-pipeline');
const withAgents = !argv.includes('--no-agents') && (!only || only.includes('gateway'));
const withSustained = !argv.includes('--no-sustained') && (!only || only.includes('gateway'));
const withProfile = argv.includes('--profile') || (!quick && !argv.includes('--no-profile'));
const outDirectory = option('out') ?? (quick ? WORK : path.join(ROOT, 'docs'));

const plan: Plan = runPlan(quick);

const scale = Number(option('scale') ?? 1);
if (scale !== 1) {
  for (const key of ['warmupMs', 'latencyMs', 'throughputMs', 'streamWarmupMs', 'streamMs', 'profileMs'] as const) {
    plan[key] = Math.max(200, Math.round(plan[key] * scale));
  }
}

const log = (message: string) => console.log(`[bench ${((performance.now() - t0) / 1000).toFixed(1)}s] ${message}`);
const t0 = performance.now();
const errors: string[] = [];

async function sanityCheck(running: RunningTarget, format: 'openai' | 'anthropic'): Promise<void> {
  const shape = requestShape(running, format, false);
  const response = await fetch(`${shape.origin}${shape.path}`, {
    method: 'POST',
    headers: shape.headers,
    body: shape.body,
  });
  const text = await response.text();
  if (response.status !== 200 || !text.includes('Hello')) {
    throw new Error(`${format} request answered HTTP ${response.status}: ${text.slice(0, 300)}`);
  }
}

async function measureFormat(
  running: RunningTarget,
  format: 'openai' | 'anthropic',
  upstreamUrl: string,
  direct: RunningTarget,
): Promise<FormatResult> {
  await configureUpstream(upstreamUrl, plan.streamShape);
  await sanityCheck(running, format);
  const plain = requestShape(running, format, false);
  const streamed = requestShape(running, format, true);
  // At c=1 every request to a target follows one straight to the upstream (see LoadOptions.baseline).
  const paired = running.role !== 'upstream';
  const latency = await closedLoop(plain, {
    concurrency: 1,
    durationMs: plan.latencyMs,
    warmupMs: plan.warmupMs,
    ...(paired ? { baseline: requestShape(direct, format, false) } : {}),
  });
  log(`  ${format} c=1: p50 ${latency.p50.toFixed(2)} ms, p99 ${latency.p99.toFixed(2)} ms, errors ${latency.errors}`);
  await closedLoop(plain, { concurrency: plan.concurrency, durationMs: plan.warmupMs, warmupMs: 0 });
  const cpuBefore = treeCpuMs(running.pid);
  const mainBefore = threadCpuMs(running.pid);
  const companions = running.companions ?? [];
  const companionsBefore = companions.map(({ pid }) => treeCpuMs(pid));
  const load: LoadOptions = { concurrency: plan.concurrency, durationMs: plan.throughputMs, warmupMs: 0 };
  const throughput = await closedLoop(plain, load);
  const cpuMs = treeCpuMs(running.pid) - cpuBefore;
  const mainThreadMs = threadCpuMs(running.pid) - mainBefore;
  const perRequest = (ms: number) => (throughput.requests ? ms / throughput.requests : Number.NaN);
  const companionsCpuMsPerRequest = Object.fromEntries(
    companions.map(({ name, pid }, index) => [name, perRequest(treeCpuMs(pid) - companionsBefore[index]!)]),
  );
  log(
    `  ${format} c=${plan.concurrency}: ${throughput.rps.toFixed(0)} req/s, p99 ${throughput.p99.toFixed(2)} ms, errors ${throughput.errors}`,
  );
  const stream = await streamLoop(streamed, {
    ...(paired ? { baseline: requestShape(direct, format, true) } : {}),
    concurrency: 1,
    durationMs: plan.streamMs,
    warmupMs: plan.streamWarmupMs,
  });
  log(
    `  ${format} stream: TTFT p50 ${stream.ttft.p50.toFixed(2)} ms, gap p50 ${stream.gap.p50.toFixed(2)} ms, errors ${stream.errors}`,
  );
  let hold: FormatResult['hold'] = null;
  // Quick runs hold the slow streams on the gateways only: that is where the memory target is.
  if (format === 'openai' && (!quick || running.role === 'gateway')) {
    await configureUpstream(upstreamUrl, plan.holdShape);
    hold = await holdStreams(streamed, plan.holdStreams, () => treeRss(running.pid));
    await configureUpstream(upstreamUrl, plan.streamShape);
    log(
      `  ${plan.holdStreams} slow streams: RSS ${(hold.idleRss / 1e6).toFixed(0)} → ${(hold.peakRss / 1e6).toFixed(0)} MB, ` +
        `${hold.completed} completed, max ${hold.maxOpen} open, errors ${hold.errors}`,
    );
  }
  return {
    latency,
    throughput: {
      ...throughput,
      cpuMsPerRequest: perRequest(cpuMs),
      mainThreadCpuMsPerRequest: perRequest(mainThreadMs),
      ...(companions.length ? { companionsCpuMsPerRequest } : {}),
    },
    stream,
    hold,
  };
}

const errorCount = (result: FormatResult) =>
  result.latency.errors + result.throughput.errors + result.stream.errors + (result.hold?.errors ?? 0);

function firstErrorOf(result: FormatResult): string | null {
  return (
    result.latency.firstError ??
    result.throughput.firstError ??
    result.stream.firstError ??
    result.hold?.firstError ??
    null
  );
}

async function measureTarget(target: Target, context: BenchContext, direct: RunningTarget): Promise<TargetResult> {
  const base = { id: target.id, label: target.label, role: target.role };
  const reason = target.unavailable(context);
  if (reason) {
    log(`${target.label}: ${reason}`);
    return { ...base, status: 'skipped', reason, version: '', installSeconds: 0, startSeconds: 0, formats: {} };
  }
  log(`${target.label}: starting`);
  const started = performance.now();
  let running: RunningTarget;
  try {
    running = await target.start(context);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof NotAvailable) {
      log(`${target.label}: ${message}`);
      return {
        ...base,
        status: 'skipped',
        reason: message,
        version: '',
        installSeconds: 0,
        startSeconds: 0,
        formats: {},
      };
    }
    log(`${target.label}: FAILED to start: ${message}`);
    if (target.role !== 'peer') errors.push(`${target.label} did not start: ${message}`);
    return { ...base, status: 'failed', reason: message, version: '', installSeconds: 0, startSeconds: 0, formats: {} };
  }
  const startSeconds = (performance.now() - started) / 1000 - running.installSeconds;
  log(`${target.label}: ${running.version}, started in ${startSeconds.toFixed(1)} s`);
  const result: TargetResult = {
    ...base,
    status: 'ok',
    version: running.version,
    installSeconds: running.installSeconds,
    startSeconds,
    formats: {},
  };
  try {
    for (const format of plan.formats) {
      if (!running[format]) continue;
      try {
        const measured = await measureFormat(running, format, context.upstreamUrl, direct);
        result.formats[format] = measured;
        const failed = errorCount(measured);
        if (failed > 0 && target.role !== 'peer') {
          errors.push(`${target.label} ${format}: ${failed} failed requests, first: ${firstErrorOf(measured)}`);
        }
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        log(`${target.label} ${format}: FAILED: ${message}`);
        result.formatErrors = { ...result.formatErrors, [format]: message };
        if (target.role !== 'peer') errors.push(`${target.label} ${format}: ${message}`);
      }
    }
  } finally {
    await running.stop();
  }
  return result;
}

/** The agent workloads (agent-workloads.ts); a failed request or a failure to start is an error of the run. */
async function agentPhase(upstreamUrl: string): Promise<AgentWorkloadsResult | null> {
  try {
    const result = await measureAgentWorkloads(upstreamUrl, agentPlan(quick), log);
    for (const each of result.workloads) {
      const failed = each.targets.reduce((sum, target) => sum + target.errors, 0);
      if (failed)
        errors.push(
          `agent ${each.workload.id}: ${failed} failed requests, first: ${each.targets.find((t) => t.firstError)?.firstError}`,
        );
    }
    return result;
  } catch (error) {
    errors.push(`agent workloads: ${error instanceof Error ? error.message : String(error)}`);
    return null;
  }
}

/** `--render=<results.json>`: writes the report again from a saved run (no measuring). */
async function render(file: string): Promise<number> {
  const bench = JSON.parse(readFileSync(file, 'utf8')) as BenchResults;
  const written = await writeReport(bench, option('out') ?? (bench.quick ? WORK : path.join(ROOT, 'docs')));
  log(`report of the run of ${bench.startedAt}: ${written.map((name) => path.relative(ROOT, name)).join(', ')}`);
  return 0;
}

async function main(): Promise<number> {
  const saved = option('render');
  if (saved) return render(saved);
  ensureWorkDirectories();
  // The gateway is measured as it ships: the bundle `npm start` runs, built from this checkout.
  execFileSync('npm', ['run', '--silent', 'build:server'], { cwd: ROOT, stdio: 'inherit' });
  const loadBefore = os.loadavg();
  log(
    `${quick ? 'quick' : 'full'} run on ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, load average ${loadBefore.map((value) => value.toFixed(2)).join(' ')}`,
  );
  const upstream = await forkTs('fake-upstream', 'bench/fake-upstream.ts');
  const upstreamUrl = `http://127.0.0.1:${upstream.port}`;
  const context: BenchContext = { upstreamUrl, quick, profileDirectory: null, log };
  const targets: Target[] = [
    upstreamTarget({ url: upstreamUrl, pid: upstream.child.pid }),
    ceilingTarget,
    gatewayEmbeddedTarget,
    gatewayClusterTarget,
    ...(withPeers ? [portkeyTarget, litellmTarget] : []),
  ].filter((target) => !only || only.includes(target.id));
  const results: TargetResult[] = [];
  let profile: BenchResults['profile'] = null;
  let paired: PairedResult[] = [];
  let pairedLatency: PairedLatencyResult[] = [];
  let pipeline: PipelineResults | null = null;
  let sustained: SustainedPhase | null = null;
  let agents: AgentWorkloadsResult | null = null;
  try {
    const direct = await upstreamTarget({ url: upstreamUrl, pid: upstream.child.pid }).start(context);
    for (const target of targets) results.push(await measureTarget(target, context, direct));
    if (!quick) paired = await measurePaired(targets, results, context, PAIRED, log, errors);
    if (!quick) {
      pairedLatency = await measurePairedLatency(targets, results, direct, context, PAIRED_LATENCY, log, errors);
    }
    if (withAgents) agents = await agentPhase(upstreamUrl);
    if (withSustained) sustained = await sustainedPhase(context, quick, errors);
    if (withProfile && (!only || only.includes('gateway'))) {
      try {
        profile = await profileGateway(context, plan, log);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        log(`profile: FAILED: ${message}`);
        errors.push(`profile: ${message}`);
      }
    }
  } finally {
    await upstream.child.stop();
  }
  if (withPipeline) pipeline = await measurePipeline(plan, log, errors);
  const bench: BenchResults = {
    quick,
    startedAt: new Date(Date.now() - (performance.now() - t0)).toISOString(),
    seconds: (performance.now() - t0) / 1000,
    loadBefore,
    loadAfter: os.loadavg(),
    command: `npm run ${quick ? 'bench:quick' : 'bench'}${argv.filter((value) => value !== '--quick').length ? ` -- ${argv.filter((value) => value !== '--quick').join(' ')}` : ''}`,
    plan,
    targets: results,
    paired,
    pairedLatency,
    sustained,
    agents,
    pipeline,
    profile,
    errors,
  };
  printSummary(bench);
  try {
    const written = await writeReport(bench, outDirectory);
    log(`report: ${written.map((file) => path.relative(ROOT, file)).join(', ')}`);
  } catch (error) {
    errors.push(`report: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  }
  log(`done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  if (errors.length) {
    console.error(`\nbench errors:\n${errors.map((error) => `  - ${error}`).join('\n')}`);
    return 1;
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
