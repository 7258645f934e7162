/**
 * @module bench/report-sustained
 * The sustained phase in the report: goodput (2xx per second) per window, the answers that were not
 * a 2xx, and the targets judged on them (issue 22).
 */
import type { Goal } from './report.ts';
import { fixed, table, whole } from './report-text.ts';
import type { SustainedResult } from './sustained.ts';
import type { SustainedPhase } from './sustained-run.ts';

const describeFailures = (failures: Record<string, number>) =>
  Object.entries(failures)
    .map(([status, count]) => `${count} × ${status}`)
    .join(', ') || '0';

/** The Node ceiling's own worst window beside the same hogs, the reference for the gateway's. */
function ceilingWindows(phase: SustainedPhase): string {
  const runs = phase.ceilingRuns ?? [];
  if (runs.length === 0) return '';
  const worst = Math.min(...runs.map((run) => run.worstOverBest));
  const each = runs.map((run) => `${fixed(run.worstOverBest)} at c=${run.concurrency}`).join(', ');
  return ` (the Node ceiling beside the same hog: worst ${fixed(worst)}; ${each})`;
}

/** The gateway's runs under their generator's name, then the Node ceiling's under `ceilingLabel`. */
function labelledRuns(phase: SustainedPhase, ceilingLabel: string): Array<SustainedResult & { label: string }> {
  return [
    ...phase.runs.map((run) => ({ ...run, label: run.generator as string })),
    ...(phase.ceilingRuns ?? []).map((run) => ({ ...run, label: ceilingLabel })),
  ];
}

export function sustainedGoals(phase: SustainedPhase | null | undefined): Goal[] {
  if (!phase || phase.runs.length === 0) {
    return [{ goal: 'sustained load beside a CPU hog: zero non-2xx', measured: 'not measured in this run', met: null }];
  }
  const seconds = phase.plan.durationMs / 1000;
  const failed = phase.runs.reduce((sum, run) => sum + run.failed, 0);
  const worst = Math.min(...phase.runs.map((run) => run.worstOverBest));
  const goals: Goal[] = [
    {
      goal: `sustained ${seconds} s beside ${phase.plan.hogs} CPU hog(s), c=${phase.plan.concurrencies.join('/')}: zero non-2xx`,
      measured: `${failed} non-2xx in ${phase.runs.reduce((sum, run) => sum + run.ok + run.failed, 0).toLocaleString('en')} answers`,
      met: failed === 0,
    },
    {
      goal: `every ${phase.plan.windowMs / 1000} s window's goodput within 30% of the run's best`,
      measured: `worst window ${fixed(worst)} × its run's best${ceilingWindows(phase)}`,
      met: worst >= 0.7,
    },
  ];
  const undici = phase.runs.find(
    (run) => run.generator === 'undici' && run.concurrency === phase.plan.concurrencies[0],
  );
  const autocannon = phase.runs.find((run) => run.generator === 'autocannon');
  const agreement =
    undici && autocannon
      ? Math.abs(undici.goodput - autocannon.goodput) / Math.max(undici.goodput, autocannon.goodput)
      : null;
  goals.push({
    goal: 'the two load generators agree within 15%',
    measured:
      agreement === null
        ? `not measured: ${phase.autocannonUnavailable ?? 'no autocannon run'}`
        : `undici ${whole(undici!.goodput)} vs autocannon ${whole(autocannon!.goodput)} 2xx/s (${fixed(agreement * 100, 0)}% apart)`,
    met: agreement === null ? null : agreement <= 0.15,
  });
  return goals;
}

export function sustainedSection(phase: SustainedPhase | null | undefined): string {
  if (!phase) return '';
  const { plan } = phase;
  return [
    '### Sustained load beside a CPU hog',
    '',
    `The gateway (embedded, as \`npm start\` runs it) with ${plan.hogs} single-threaded busy loop(s) at normal priority beside it (\`node -e 'for(;;){}'\`), each load generator in a closed loop after ${plan.warmupMs / 1000} s of warm-up; goodput is the 2xx answers per second, counted in ${plan.windowMs / 1000} s windows by the time each answer arrived. undici is the bench's own client (\`bench/sustained.ts\`), autocannon an independent one (\`bench/autocannon.ts\`, one continuous run of its CLI in its own process, its answers counted into the same windows). The Node ceiling rows are the same undici loop against the Node ceiling (a relay that records nothing) beside the same busy loop: how level this machine keeps any relay's windows.`,
    '',
    table(
      ['generator', 'clients', 'seconds', 'goodput (2xx/s)', 'per window', 'worst/best', 'not 2xx'],
      labelledRuns(phase, 'Node ceiling (undici)').map((run) => [
        run.label,
        String(run.concurrency),
        String(run.seconds),
        whole(run.goodput),
        run.windows.map((value) => whole(value)).join(', '),
        fixed(run.worstOverBest),
        describeFailures(run.failures),
      ]),
      [1, 2, 3, 5],
    ),
    '',
    ...(phase.autocannonUnavailable ? [`autocannon did not run: ${phase.autocannonUnavailable}`, ''] : []),
  ].join('\n');
}

export function sustainedSummary(phase: SustainedPhase | null | undefined): string[] {
  if (!phase) return [];
  return [
    `-- sustained, ${phase.plan.hogs} CPU hog(s)`,
    ...labelledRuns(phase, 'ceiling').map(
      (run) =>
        `  ${run.label.padEnd(10)} c=${String(run.concurrency).padEnd(5)} ${whole(run.goodput).padStart(7)} 2xx/s, windows [${run.windows.map((value) => whole(value)).join(', ')}], not 2xx: ${describeFailures(run.failures)}`,
    ),
  ];
}
