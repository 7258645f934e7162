/**
 * The same browser journey as console.e2e.spec.ts, on the cluster stores: the gateway (with its
 * projector in process) on real Kafka, ClickHouse and Redis, under a namespace and database of its
 * own. Skipped loudly when no such servers can be had (a failure under CLUSTER_SUITE_REQUIRED=1, as
 * in .ci/run). Screenshots in test/artifacts/cluster/.
 */
import { describe, it } from 'vitest';
import { dropNamespace } from '../cluster/cluster-namespace.ts';
import { resolveClusterServices } from '../cluster/cluster-services.ts';
import { consoleJourney } from './support/console-journey.ts';

const services = resolveClusterServices();
const run = `e2e${Date.now().toString(36)}`;

if (services) {
  consoleJourney({
    label: 'cluster stores',
    artifacts: 'cluster',
    harness: {
      environment: {
        KAFKA_BROKERS: services.kafkaBrokers,
        CLICKHOUSE_URL: services.clickhouseUrl,
        REDIS_URL: services.redisUrl,
        CLUSTER_NAMESPACE: `${run}.`,
        CLICKHOUSE_DATABASE: run,
        GATEWAY_SECRET: 'console-e2e-cluster-secret-0123456789abcdef',
      },
    },
    cleanup: () => dropNamespace(services, `${run}.`, run),
  });
} else {
  // resolveClusterServices has already printed the SKIPPED banner (and thrown under CLUSTER_SUITE_REQUIRED).
  describe.skipIf(services === null)('the console in a browser (cluster stores)', () => {
    it('needs Kafka, ClickHouse and Redis', () => undefined);
  });
}
