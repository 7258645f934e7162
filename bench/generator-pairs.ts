/**
 * @module bench/generator-pairs
 * The two load generators compared in alternating windows: undici's loop and autocannon's, each in
 * turn against the same target a few seconds apart (which goes first alternates too), each pair
 * giving one ratio, the median of the pairs the figure.
 *
 * Why pairs: the sustained runs of the two generators are a minute apart, and this machine's speed
 * drifts over minutes (the Node ceiling alone read 7,486 and then 3,996 requests/s at c=64 within
 * one quarter hour), so comparing them measured the host's drift as often as the generators. Every
 * other ratio of the bench is judged on alternating windows for the same reason.
 */
import { autocannonLoop } from './autocannon.ts';
import type { RequestShape } from './load.ts';
import { median } from './paired.ts';
import { type SustainedResult, sustainedLoop } from './sustained.ts';

export interface GeneratorPairsPlan {
  pairs: number;
  concurrency: number;
  /** each side's measured window */
  windowMs: number;
  /** load before each window, not counted (autocannon's process starts in it) */
  warmupMs: number;
}

export interface GeneratorPairs {
  plan: GeneratorPairsPlan;
  /** 2xx per second in each pair's window, by generator */
  undici: number[];
  autocannon: number[];
  /** each generator's own CPU per 2xx in each pair's window (µs), by generator */
  cpuPerOk: { undici: number[]; autocannon: number[] };
  /** answers that were not a 2xx in any window, by generator */
  failed: { undici: number; autocannon: number };
}

/** autocannon's goodput over undici's, pair by pair. */
export const pairRatios = (pairs: GeneratorPairs) =>
  pairs.undici.map((undici, index) => (undici > 0 ? pairs.autocannon[index]! / undici : 0));

/**
 * How far apart the generators are, from the median ratio: |a - u| / max(a, u), the measure the
 * one-after-the-other comparison uses.
 */
export function pairsApart(pairs: GeneratorPairs): number {
  const ratio = median(pairRatios(pairs));
  return ratio <= 1 ? 1 - ratio : 1 - 1 / ratio;
}

export async function measureGeneratorPairs(
  shape: RequestShape,
  plan: GeneratorPairsPlan,
  log: (message: string) => void,
): Promise<GeneratorPairs> {
  const result: GeneratorPairs = {
    plan,
    undici: [],
    autocannon: [],
    cpuPerOk: { undici: [], autocannon: [] },
    failed: { undici: 0, autocannon: 0 },
  };
  const options = { concurrency: plan.concurrency, durationMs: plan.windowMs, windowMs: plan.windowMs };
  const run = async (generator: 'undici' | 'autocannon'): Promise<SustainedResult> => {
    const window = { ...options, warmupMs: plan.warmupMs };
    return generator === 'undici' ? sustainedLoop(shape, window) : autocannonLoop(shape, window);
  };
  for (let index = 0; index < plan.pairs; index++) {
    const order: Array<'undici' | 'autocannon'> = index % 2 === 0 ? ['undici', 'autocannon'] : ['autocannon', 'undici'];
    for (const generator of order) {
      const window = await run(generator);
      result[generator].push(window.goodput);
      result.cpuPerOk[generator].push(window.generatorCpuPerOk ?? Number.NaN);
      result.failed[generator] += window.failed;
    }
    log(
      `  generators, pair ${index + 1}: undici ${result.undici[index]!.toFixed(0)}, autocannon ${result.autocannon[index]!.toFixed(0)} 2xx/s (their own CPU ${result.cpuPerOk.undici[index]!.toFixed(0)} and ${result.cpuPerOk.autocannon[index]!.toFixed(0)} µs per 2xx)`,
    );
  }
  return result;
}
