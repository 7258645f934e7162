/**
 * @module test/cluster/cluster-global-setup
 * vitest globalSetup of the `cluster` project: where a Docker engine answers, Kafka, ClickHouse and Redis
 * are started once through testcontainers for every cluster suite and removed at the end. Where none
 * answers, or the containers cannot start, the reason is handed on and each suite falls back to
 * `scripts/services` (test/cluster/cluster-services.ts prints it). Skipped when the environment already
 * names the servers, or with CLUSTER_BACKEND=scripts/services.
 */
import type { TestProject } from 'vitest/node';
import { type ClusterContainers, type StartedClusterContainers, startClusterContainers } from './cluster-containers.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    clusterContainers: ClusterContainers | null;
    clusterContainersError: string | null;
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const { KAFKA_BROKERS, CLICKHOUSE_URL, REDIS_URL, CLUSTER_BACKEND } = process.env;
  project.provide('clusterContainers', null);
  project.provide('clusterContainersError', null);
  if (KAFKA_BROKERS && CLICKHOUSE_URL && REDIS_URL) return undefined;
  if (CLUSTER_BACKEND === 'scripts/services') {
    project.provide('clusterContainersError', 'CLUSTER_BACKEND=scripts/services');
    return undefined;
  }
  let started: StartedClusterContainers;
  const began = Date.now();
  try {
    started = await startClusterContainers();
  } catch (error) {
    project.provide('clusterContainersError', error instanceof Error ? error.message : String(error));
    return undefined;
  }
  const { images } = started.services;
  console.log(
    `[cluster suite] testcontainers: ${images.kafka}, ${images.clickhouse}, ${images.redis} up in ${Math.round((Date.now() - began) / 1000)} s`,
  );
  project.provide('clusterContainers', started.services);
  return () => started.stop();
}
