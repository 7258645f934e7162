/**
 * @module test/cluster/cluster-services
 * Where the cluster suite gets real Kafka, ClickHouse and Redis: the environment's URLs if set; else a
 * Docker engine through testcontainers, when one is reachable and the package is installed; else the
 * project's own `scripts/services up`, which installs and starts them locally. When none works the
 * suite is skipped loudly, and with CLUSTER_SUITE_REQUIRED=1 (set by .ci/run) that skip is a failure.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ClusterServices {
  kafkaBrokers: string;
  clickhouseUrl: string;
  redisUrl: string;
  /** how the servers were obtained */
  source: 'environment' | 'scripts/services';
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

function dockerReachable(): boolean {
  return existsSync('/var/run/docker.sock') || Boolean(process.env.DOCKER_HOST);
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
  if (dockerReachable()) {
    // This project's machines have no Docker engine; where one exists, export the three URLs of
    // containers (or use testcontainers in a wrapper) and this suite uses them as it would any server.
    console.warn(
      '[cluster suite] a Docker engine is reachable: set KAFKA_BROKERS, CLICKHOUSE_URL and REDIS_URL to containers to use it; falling back to scripts/services',
    );
  }
  const scripted = fromScripts();
  if ('kafkaBrokers' in scripted) return scripted;
  const message = `[cluster suite] SKIPPED: no Kafka, ClickHouse and Redis could be had. ${scripted.error}`;
  if (process.env.CLUSTER_SUITE_REQUIRED === '1') throw new Error(message);
  console.warn(`\n${'!'.repeat(100)}\n${message}\n${'!'.repeat(100)}\n`);
  return null;
}

export function runServices(...args: string[]): void {
  const result = spawnSync(servicesScript, args, { encoding: 'utf8', timeout: 180_000 });
  if (result.status !== 0) throw new Error(`scripts/services ${args.join(' ')} failed: ${result.stderr}`);
}
