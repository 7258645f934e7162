/**
 * @module bench/sustained-run
 * `npx tsx bench/sustained-run.ts [--concurrency=64,256] [--seconds=30] [--window=5] [--hogs=1] [--autocannon=30]
 * [--pairs=6] [--trace] [--ceiling] [--no-build]`:
 * the gateway as `npm start` runs it (the bundle, built first), the fast fake upstream, and `--hogs`
 * CPU-bound processes beside them, under a sustained closed loop at each concurrency in turn. Prints
 * the windows and exits 1 when any answer was not a 2xx. The bench calls `measureSustained` itself.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { autocannonLoop, findAutocannon } from './autocannon.ts';
import { gatewayEmbeddedTarget } from './gateway-targets.ts';
import { type GeneratorPairs, type GeneratorPairsPlan, measureGeneratorPairs } from './generator-pairs.ts';
import { type Child, forkTs, isMain, ROOT } from './processes.ts';
import { describeSustained, type SustainedResult, startCpuHog, sustainedLoop } from './sustained.ts';
import {
  type BenchContext,
  ceilingTarget,
  ensureWorkDirectories,
  type RunningTarget,
  requestShape,
} from './targets.ts';

export interface SustainedPlan {
  concurrencies: number[];
  durationMs: number;
  windowMs: number;
  warmupMs: number;
  /** CPU-bound processes beside the gateway */
  hogs: number;
  /** also drive c=concurrencies[0] with autocannon for this long (0: not) */
  autocannonMs: number;
  /** log the event queue's depth and the store worker's nice value every second */
  trace?: boolean;
  /**
   * also drive the Node ceiling beside the same hogs at each concurrency: how level a relay that
   * records nothing keeps its windows on this machine, the reference for the gateway's
   */
  ceilingReference?: boolean;
  /** then the two generators in alternating windows at concurrencies[0], judged on these (absent: not) */
  generatorPairs?: Omit<GeneratorPairsPlan, 'concurrency'>;
}

export interface SustainedRun extends SustainedResult {
  generator: 'undici' | 'autocannon';
}

/** The sustained figures of a bench run: the embedded gateway beside `hogs` CPU hogs. */
export interface SustainedPhase {
  plan: SustainedPlan;
  runs: SustainedRun[];
  /** why autocannon did not run, when it did not */
  autocannonUnavailable: string | null;
  /** the data overview's totals after the undici runs, against every answer those runs got */
  recorded?: RecordedTotals | null;
  /** the Node ceiling's runs beside the same hogs (undici), when the plan asks for them */
  ceilingRuns?: SustainedResult[];
  /** undici and autocannon in alternating windows beside the same hogs, when the plan asks for them */
  generatorPairs?: GeneratorPairs | null;
}

export interface RecordedTotals {
  answeredOk: number;
  answeredFailed: number;
  transportErrors: number;
  calls: number;
  errors: number;
  /** how long after the load the overview showed these (its projection catching up) */
  waitedMs: number;
}

/**
 * Waits until the overview counts at least every answer the undici runs got and its count has held
 * for a second (a count above that would be requests recorded twice), up to a minute.
 */
async function recordedTotals(running: RunningTarget, runs: SustainedRun[]): Promise<RecordedTotals | null> {
  if (!running.usageTotals) return null;
  const answered = runs.map((run) => run.answered ?? { ok: 0, failed: 0, transportErrors: 0 });
  const answeredOk = answered.reduce((sum, run) => sum + run.ok, 0);
  const answeredFailed = answered.reduce((sum, run) => sum + run.failed, 0);
  const transportErrors = answered.reduce((sum, run) => sum + run.transportErrors, 0);
  const started = performance.now();
  let totals = await running.usageTotals();
  let heldSince = performance.now();
  while (performance.now() - started < 60_000) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const next = await running.usageTotals();
    if (next.calls !== totals.calls || next.errors !== totals.errors) heldSince = performance.now();
    totals = next;
    if (totals.calls >= answeredOk + answeredFailed && performance.now() - heldSince >= 1000) break;
  }
  return { answeredOk, answeredFailed, transportErrors, ...totals, waitedMs: performance.now() - started };
}

/** Starts the embedded gateway on `context`'s upstream and measures each concurrency of `plan`. */
export async function measureSustained(context: BenchContext, plan: SustainedPlan): Promise<SustainedPhase> {
  const autocannon = plan.autocannonMs > 0 ? findAutocannon() : { reason: 'not asked for' };
  const running = await gatewayEmbeddedTarget.start(context);
  const hogs: Child[] = [];
  const runs: SustainedRun[] = [];
  let recorded: RecordedTotals | null = null;
  let generatorPairs: GeneratorPairs | null = null;
  let measured = false;
  const report = (run: SustainedRun) => {
    context.log(`  sustained (${run.generator}), ${plan.hogs} CPU hog(s): ${describeSustained(run)}`);
    if (run.firstError) context.log(`    first failure: ${run.firstError}`);
    runs.push(run);
  };
  try {
    for (let index = 0; index < plan.hogs; index++) hogs.push(startCpuHog(`cpu-hog-${index}`));
    const shape = requestShape(running, 'openai', false);
    const trace = plan.trace ? traceQueue(running.origin, running.pid, context.log) : null;
    const options = { durationMs: plan.durationMs, windowMs: plan.windowMs, warmupMs: plan.warmupMs };
    // The concurrency autocannon drives too goes last, so that the two generators' runs of it are
    // seconds apart (the overview's totals are checked between them), not minutes: this machine's
    // speed drifts over minutes (the Node ceiling once served 10% less a minute after autocannon than
    // the gateway had three minutes before it, and the generators seemed 20% apart).
    const [first, ...rest] = plan.concurrencies;
    const order = 'bin' in autocannon && first !== undefined ? [...rest, first] : plan.concurrencies;
    for (const concurrency of order) {
      report({ generator: 'undici', ...(await sustainedLoop(shape, { ...options, concurrency })) });
    }
    recorded = await recordedTotals(running, runs);
    if (recorded) {
      context.log(
        `  recorded: overview ${recorded.calls} calls (${recorded.errors} errors) for ${recorded.answeredOk} 2xx + ${recorded.answeredFailed} other answers, after ${(recorded.waitedMs / 1000).toFixed(1)} s`,
      );
    }
    if ('bin' in autocannon) {
      const concurrency = plan.concurrencies[0]!;
      const result = await autocannonLoop(shape, {
        ...options,
        durationMs: plan.autocannonMs,
        concurrency,
      });
      report({ generator: 'autocannon', ...result });
      if (plan.generatorPairs) {
        generatorPairs = await measureGeneratorPairs(shape, { ...plan.generatorPairs, concurrency }, context.log);
      }
    } else if (plan.autocannonMs > 0) throw new Error(`autocannon: ${autocannon.reason}`);
    if (trace) clearInterval(trace);
    measured = true;
  } finally {
    await running.stop();
    // The ceiling's reference runs beside the same hogs, which ceilingBeside stops.
    if (!(plan.ceilingReference && measured)) for (const hog of hogs) await hog.stop();
  }
  const ceilingRuns = plan.ceilingReference ? await ceilingBeside(context, plan, hogs) : undefined;
  return {
    plan,
    runs,
    autocannonUnavailable: 'bin' in autocannon ? null : autocannon.reason,
    recorded,
    generatorPairs,
    ...(ceilingRuns && { ceilingRuns }),
  };
}

/**
 * The Node ceiling at each concurrency of `plan`, beside the hogs already running (stopped here). On
 * this shared two-core machine its own windows moved by up to 40% beside one busy loop (worst/best
 * 0.61 at c=1,024), so the gateway's windows are read beside these.
 */
async function ceilingBeside(context: BenchContext, plan: SustainedPlan, hogs: Child[]): Promise<SustainedResult[]> {
  const runs: SustainedResult[] = [];
  try {
    const ceiling = await ceilingTarget.start(context);
    try {
      const shape = requestShape(ceiling, 'openai', false);
      const options = { durationMs: plan.durationMs, windowMs: plan.windowMs, warmupMs: plan.warmupMs };
      for (const concurrency of plan.concurrencies) {
        const run = await sustainedLoop(shape, { ...options, concurrency });
        context.log(`  sustained (undici), the Node ceiling beside the same hog(s): ${describeSustained(run)}`);
        runs.push(run);
      }
    } finally {
      await ceiling.stop();
    }
  } finally {
    for (const hog of hogs) await hog.stop();
  }
  return runs;
}

/**
 * The bench's sustained phase: quick (CI) 15 s at c=64 with one CPU hog, 10 s of autocannon, and two
 * alternating pairs of the generators' windows; full, 60 s at each of c=64, 256 and 1,024, 60 s of
 * autocannon at c=64, and six pairs. Any answer that is not a 2xx is an error of the run (a 503 here is
 * a defect, not a missed target).
 */
export async function sustainedPhase(
  context: BenchContext,
  quick: boolean,
  errors: string[],
): Promise<SustainedPhase | null> {
  const plan: SustainedPlan = quick
    ? {
        concurrencies: [64],
        durationMs: 15_000,
        windowMs: 5_000,
        warmupMs: 3_000,
        hogs: 1,
        autocannonMs: 10_000,
        generatorPairs: { pairs: 2, windowMs: 4_000, warmupMs: 1_500 },
      }
    : {
        concurrencies: [64, 256, 1024],
        durationMs: 60_000,
        windowMs: 5_000,
        warmupMs: 5_000,
        hogs: 1,
        autocannonMs: 60_000,
        ceilingReference: true,
        generatorPairs: { pairs: 6, windowMs: 8_000, warmupMs: 2_000 },
      };
  context.log(`gateway (embedded), sustained beside ${plan.hogs} CPU hog(s)`);
  try {
    const phase = await measureSustained(context, plan);
    const recorded = phase.recorded;
    if (
      recorded &&
      (recorded.calls !== recorded.answeredOk + recorded.answeredFailed ||
        recorded.calls - recorded.errors !== recorded.answeredOk)
    ) {
      errors.push(
        `gateway sustained: the overview shows ${recorded.calls} calls (${recorded.errors} errors) for ${recorded.answeredOk} 2xx and ${recorded.answeredFailed} other answers`,
      );
    }
    const pairs = phase.generatorPairs;
    if (pairs && pairs.failed.undici + pairs.failed.autocannon > 0) {
      errors.push(
        `gateway sustained, the generators' alternating windows: ${pairs.failed.undici} (undici) and ${pairs.failed.autocannon} (autocannon) non-2xx`,
      );
    }
    for (const run of phase.runs.filter((run) => run.failed > 0)) {
      errors.push(
        `gateway sustained (${run.generator}) c=${run.concurrency}: ${describeSustained(run)}; first: ${run.firstError}`,
      );
    }
    return phase;
  } catch (error) {
    errors.push(`gateway sustained: ${error instanceof Error ? error.message : String(error)}`);
    return null;
  }
}

function traceQueue(origin: string, pid: number, log: (message: string) => void): NodeJS.Timeout {
  return setInterval(async () => {
    const metrics = await (await fetch(`${origin}/metrics`)).text();
    const depth = /^gateway_event_queue_depth (\S+)/m.exec(metrics)?.[1];
    const lag = /^gateway_projector_lag_events (\S+)/m.exec(metrics)?.[1];
    const nice = readdirSync(`/proc/${pid}/task`).map((tid) => {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
    });
    log(`    queue ${depth}, projector lag ${lag}, worker nice ${Math.max(...nice)}`);
  }, 1000);
}

if (isMain(import.meta.url)) {
  const option = (name: string, fallback: string) =>
    process.argv.find((value) => value.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
  const t0 = performance.now();
  const log = (message: string) =>
    console.log(`[sustained ${((performance.now() - t0) / 1000).toFixed(1)}s] ${message}`);
  ensureWorkDirectories();
  if (!process.argv.includes('--no-build'))
    execFileSync('npm', ['run', '--silent', 'build:server'], { cwd: ROOT, stdio: 'inherit' });
  const upstream = await forkTs('fake-upstream', 'bench/fake-upstream.ts');
  let failed = 0;
  try {
    const { runs } = await measureSustained(
      { upstreamUrl: `http://127.0.0.1:${upstream.port}`, quick: true, profileDirectory: null, log },
      {
        concurrencies: option('concurrency', '64').split(',').map(Number),
        durationMs: Number(option('seconds', '30')) * 1000,
        windowMs: Number(option('window', '5')) * 1000,
        warmupMs: 1000,
        hogs: Number(option('hogs', '1')),
        autocannonMs: Number(option('autocannon', '0')) * 1000,
        trace: process.argv.includes('--trace'),
        ceilingReference: process.argv.includes('--ceiling'),
        ...(Number(option('pairs', '0')) > 0 && {
          generatorPairs: { pairs: Number(option('pairs', '0')), windowMs: 8_000, warmupMs: 2_000 },
        }),
      },
    );
    failed = runs.reduce((sum, run) => sum + run.failed, 0);
  } finally {
    await upstream.child.stop();
  }
  process.exit(failed > 0 ? 1 : 0);
}
