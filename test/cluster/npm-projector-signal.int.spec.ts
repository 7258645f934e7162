/**
 * `npm run projector` hands a signal sent to npm alone on to the projector: it stops
 * as it would under `docker stop` with npm as PID 1, running its own shutdown (its log line, exit
 * status 0) and leaving no process behind. Otherwise npm and its `sh` would end and the projector go on
 * consuming, re-parented. The gateway scripts are checked the same way in test/faults/npm-signals.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { commandOf, descendantsOf, isAlive, runNpmScript } from '../support/npm-script.ts';
import { dropNamespace } from './cluster-namespace.ts';
import { resolveClusterServices } from './cluster-services.ts';

const services = resolveClusterServices();
const run = Date.now().toString(36);
const database = `npmsignal${run}`;
const started: number[] = [];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(condition: () => boolean, withinMs: number): Promise<boolean> {
  for (const deadline = Date.now() + withinMs; Date.now() < deadline; await sleep(100)) {
    if (condition()) return true;
  }
  return condition();
}

afterEach(() => {
  for (const pid of started.splice(0)) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
});

afterAll(async () => {
  if (services) await dropNamespace(services, `npmsignal${run}.`, database);
});

describe.skipIf(services === null)('npm run projector', () => {
  it('stops the projector, and everything under npm, when npm alone gets SIGTERM', async () => {
    const projector = runNpmScript('projector', {
      KAFKA_BROKERS: services!.kafkaBrokers,
      CLICKHOUSE_URL: services!.clickhouseUrl,
      REDIS_URL: services!.redisUrl,
      CLUSTER_NAMESPACE: `npmsignal${run}.`,
      CLICKHOUSE_DATABASE: database,
    });
    started.push(projector.npm.pid!);
    const up = await waitFor(() => projector.output().includes('projector started'), 120_000);
    expect(up, projector.output()).toBe(true);
    const below = descendantsOf(projector.npm.pid!);
    started.push(...below);
    expect(below.map(commandOf).some((command) => command.includes('dist/projector/main.js'))).toBe(true);

    process.kill(projector.npm.pid!, 'SIGTERM');
    const npmExit = await Promise.race([projector.exited, sleep(20_000).then(() => 'still running')]);
    await waitFor(() => below.every((pid) => !isAlive(pid)), 5_000);
    expect(below.filter(isAlive).map((pid) => `${pid} ${commandOf(pid)}`)).toEqual([]);
    expect(projector.output()).toMatch(/"msg":"projector stopping","signal":"SIGTERM"/);
    expect(npmExit).toBe(0);
  }, 180_000);
});
