/**
 * @module bench/report-sustained
 * The sustained phase in the report: goodput (2xx per second) per window, the answers that were not
 * a 2xx, and the targets judged on them.
 */
import { pairRatios, pairsApart } from './generator-pairs.ts';
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
  goals.push(generatorGoal(phase));
  return goals;
}

/**
 * The generators' agreement: judged on the alternating pairs when the run has them, with the two
 * sustained runs (a minute apart, so the host's drift is in them) beside it.
 */
function generatorGoal(phase: SustainedPhase): Goal {
  const goal = 'the two load generators agree within 15%';
  const undici = phase.runs.find(
    (run) => run.generator === 'undici' && run.concurrency === phase.plan.concurrencies[0],
  );
  const autocannon = phase.runs.find((run) => run.generator === 'autocannon');
  if (!undici || !autocannon) {
    return { goal, measured: `not measured: ${phase.autocannonUnavailable ?? 'no autocannon run'}`, met: null };
  }
  const sustainedApart = Math.abs(undici.goodput - autocannon.goodput) / Math.max(undici.goodput, autocannon.goodput);
  const sustained = `undici ${whole(undici.goodput)} vs autocannon ${whole(autocannon.goodput)} 2xx/s over the sustained runs (${fixed(sustainedApart * 100, 0)}% apart)`;
  const pairs = phase.generatorPairs;
  if (!pairs || pairs.undici.length === 0) return { goal, measured: sustained, met: sustainedApart <= 0.15 };
  const apart = pairsApart(pairs);
  const ratios = pairRatios(pairs)
    .map((ratio) => fixed(ratio))
    .join(', ');
  return {
    goal,
    measured: `${fixed(apart * 100, 0)}% apart (median of ${pairs.undici.length} alternating pairs of ${pairs.plan.windowMs / 1000} s windows at c=${pairs.plan.concurrency}, autocannon over undici ${ratios}); ${sustained}`,
    met: apart <= 0.15,
  };
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
      [
        'generator',
        'clients',
        'seconds',
        'goodput (2xx/s)',
        'per window',
        'worst/best',
        'not 2xx',
        'its CPU µs per 2xx',
      ],
      labelledRuns(phase, 'Node ceiling (undici)').map((run) => [
        run.label,
        String(run.concurrency),
        String(run.seconds),
        whole(run.goodput),
        run.windows.map((value) => whole(value)).join(', '),
        fixed(run.worstOverBest),
        describeFailures(run.failures),
        run.generatorCpuPerOk === undefined ? '–' : whole(run.generatorCpuPerOk),
      ]),
      [1, 2, 3, 5],
    ),
    '',
    ...(phase.autocannonUnavailable ? [`autocannon did not run: ${phase.autocannonUnavailable}`, ''] : []),
    ...pairsSection(phase),
  ].join('\n');
}

/** The generators' alternating windows, the figures their agreement is judged on. */
function pairsSection(phase: SustainedPhase): string[] {
  const pairs = phase.generatorPairs;
  if (!pairs || pairs.undici.length === 0) return [];
  const { plan } = pairs;
  const ratios = pairRatios(pairs);
  return [
    `The two generators in alternating windows beside the same hog(s), their agreement's figures: ${pairs.undici.length} pairs at c=${plan.concurrency}, each side ${plan.windowMs / 1000} s after ${plan.warmupMs / 1000} s of load not measured, which went first alternating.`,
    '',
    table(
      [
        'pair',
        'undici (2xx/s)',
        'autocannon (2xx/s)',
        'autocannon / undici',
        'generator CPU µs per 2xx, undici / autocannon',
      ],
      pairs.undici.map((undici, index) => [
        String(index + 1),
        whole(undici),
        whole(pairs.autocannon[index]!),
        fixed(ratios[index]!),
        `${whole(pairs.cpuPerOk?.undici[index] ?? Number.NaN)} / ${whole(pairs.cpuPerOk?.autocannon[index] ?? Number.NaN)}`,
      ]),
    ),
    '',
  ];
}

export function sustainedSummary(phase: SustainedPhase | null | undefined): string[] {
  if (!phase) return [];
  return [
    `-- sustained, ${phase.plan.hogs} CPU hog(s)`,
    ...labelledRuns(phase, 'ceiling').map(
      (run) =>
        `  ${run.label.padEnd(10)} c=${String(run.concurrency).padEnd(5)} ${whole(run.goodput).padStart(7)} 2xx/s, windows [${run.windows.map((value) => whole(value)).join(', ')}], not 2xx: ${describeFailures(run.failures)}`,
    ),
    ...(phase.generatorPairs?.undici.length
      ? [
          `  generators in ${phase.generatorPairs.undici.length} alternating pairs: ${fixed(pairsApart(phase.generatorPairs) * 100, 0)}% apart (autocannon / undici ${pairRatios(
            phase.generatorPairs,
          )
            .map((ratio) => fixed(ratio))
            .join(', ')})`,
        ]
      : []),
  ];
}
