/**
 * @module test/cluster/cluster-services
 * Where the cluster suite gets real Kafka, ClickHouse and Redis: the environment's URLs if set; else the
 * containers testcontainers started for this run (test/cluster/cluster-global-setup.ts) wherever a Docker
 * engine answers; else the project's own `scripts/services up`, which installs and starts them locally.
 * When none works the suite is skipped loudly, and with CLUSTER_SUITE_REQUIRED=1 (set by .ci/run) that
 * skip is a failure. CLUSTER_BACKEND=scripts/services skips the containers; =testcontainers requires them.
 */
import { execFile, spawnSync } from 'node:child_process';
import { connect } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { getContainerRuntimeClient } from 'testcontainers';
import { inject } from 'vitest';
import type { ServerName } from './cluster-containers.ts';

export interface ClusterServices {
  kafkaBrokers: string;
  clickhouseUrl: string;
  redisUrl: string;
  /** how the servers were obtained */
  source: 'environment' | 'testcontainers' | 'scripts/services';
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const servicesScript = path.join(root, 'scripts/services');

function fromEnvironment(): ClusterServices | null {
  const { KAFKA_BROKERS, CLICKHOUSE_URL, REDIS_URL } = process.env;
  if (KAFKA_BROKERS && CLICKHOUSE_URL && REDIS_URL) {
    return { kafkaBrokers: KAFKA_BROKERS, clickhouseUrl: CLICKHOUSE_URL, redisUrl: REDIS_URL, source: 'environment' };
  }
  return null;
}

function fromScripts(): ClusterServices | { error: string } {
  const result = spawnSync(servicesScript, ['up'], { encoding: 'utf8', timeout: 600_000 });
  if (result.status !== 0)
    return {
      error: `scripts/services up failed (${result.status}): ${result.stderr.split('\n').slice(-8).join('\n')}`,
    };
  const exported = Object.fromEntries(
    [...result.stdout.matchAll(/^export (\w+)=(\S+)$/gm)].map((match) => [match[1]!, match[2]!]),
  );
  const { KAFKA_BROKERS, CLICKHOUSE_URL, REDIS_URL } = exported;
  if (!KAFKA_BROKERS || !CLICKHOUSE_URL || !REDIS_URL)
    return { error: `scripts/services up printed no URLs: ${result.stdout}` };
  return {
    kafkaBrokers: KAFKA_BROKERS,
    clickhouseUrl: CLICKHOUSE_URL,
    redisUrl: REDIS_URL,
    source: 'scripts/services',
  };
}

/** Resolves the servers, or says loudly why it cannot (and throws when the suite is required). */
export function resolveClusterServices(): ClusterServices | null {
  const environment = fromEnvironment();
  if (environment) return environment;
  const containers = inject('clusterContainers');
  if (containers) {
    const { kafkaBrokers, clickhouseUrl, redisUrl } = containers;
    return { kafkaBrokers, clickhouseUrl, redisUrl, source: 'testcontainers' };
  }
  const why = inject('clusterContainersError');
  if (process.env.CLUSTER_BACKEND === 'testcontainers')
    throw new Error(`[cluster suite] CLUSTER_BACKEND=testcontainers, but no containers: ${why}`);
  if (why) console.warn(`[cluster suite] no containers (${why.split('\n')[0]}); using scripts/services`);
  const scripted = fromScripts();
  if ('kafkaBrokers' in scripted) return scripted;
  const message = `[cluster suite] SKIPPED: no Kafka, ClickHouse and Redis could be had. ${scripted.error}`;
  if (process.env.CLUSTER_SUITE_REQUIRED === '1') throw new Error(message);
  console.warn(`\n${'!'.repeat(100)}\n${message}\n${'!'.repeat(100)}\n`);
  return null;
}

/**
 * Settings for suites that kill projectors: a projector killed without leaving its consumer group keeps
 * its partitions until its session times out, so each restart waits that long. On the broker
 * scripts/services configures (its minimum is 1 s) the timeout is 3 s instead of 10; what the kills
 * test, that nothing is lost or counted twice, does not depend on it.
 */
export function projectorRestartSettings(services: ClusterServices): Record<string, string> {
  return services.source === 'scripts/services' ? { PROJECTOR_SESSION_TIMEOUT_MS: '3000' } : {};
}

/** True where this run may stop and start the servers itself (not for servers the environment names). */
export function canStopServers(services: ClusterServices | null): boolean {
  return services?.source === 'scripts/services' || services?.source === 'testcontainers';
}

/**
 * Not spawnSync: the fault suites stop and start servers while their traffic and their fake upstream run
 * in this process, and an event loop frozen for the seconds Kafka takes to stop froze the upstream too
 * (its idle timers then fired on connections already carrying a request: a reset the gateway answered
 * 502, blamed on Kafka).
 */
function runServices(...args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(servicesScript, args, { encoding: 'utf8', timeout: 180_000 }, (error, _stdout, stderr) => {
      if (error) reject(new Error(`scripts/services ${args.join(' ')} failed: ${stderr || error.message}`));
      else resolve();
    });
  });
}

async function untilPortAnswers(port: number, limitMs: number): Promise<void> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const answered = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (answered) return;
    if (Date.now() > deadline) throw new Error(`nothing answers on 127.0.0.1:${port} after ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Stops one server (its data is kept), whichever way the run obtained it. */
export async function stopServer(services: ClusterServices, name: ServerName): Promise<void> {
  if (services.source === 'scripts/services') return runServices('stop', name);
  const containers = inject('clusterContainers');
  if (services.source !== 'testcontainers' || !containers) throw new Error(`cannot stop ${name}: not ours`);
  const client = await getContainerRuntimeClient();
  await client.container.stop(client.container.getById(containers.containers[name]), { timeout: 30 });
}

/** Starts a stopped server again and waits until it answers on its port. */
export async function startServer(services: ClusterServices, name: ServerName): Promise<void> {
  if (services.source === 'scripts/services') return runServices('start', name);
  const containers = inject('clusterContainers');
  if (services.source !== 'testcontainers' || !containers) throw new Error(`cannot start ${name}: not ours`);
  const client = await getContainerRuntimeClient();
  await client.container.start(client.container.getById(containers.containers[name]));
  await untilPortAnswers(containers.ports[name], 120_000);
}
