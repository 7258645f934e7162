/**
 * @module projector/main
 * `npm run projector`: the cluster projector role. Restartable at any point: it resumes from the last
 * committed offsets and its writes are idempotent.
 */
import { flushLogs, log } from '../platform/log.ts';
import { readStorageSettings } from '../platform/storage-settings.ts';
import { startClusterProjector } from '../stores/cluster/index.ts';
import { startHeartbeat } from './heartbeat.ts';

async function main(): Promise<void> {
  const settings = readStorageSettings();
  if (!settings.cluster) {
    throw new Error(
      'The projector role is for cluster mode: set KAFKA_BROKERS, CLICKHOUSE_URL and REDIS_URL. In embedded mode `npm start` projects in-process.',
    );
  }
  const running = await startClusterProjector(settings.cluster, log.warn);
  log.info('projector started', {
    namespace: settings.cluster.namespace,
    database: settings.cluster.clickhouseDatabase,
  });
  const report = setInterval(() => log.info('projector progress', running.projector.progress), 30_000);
  report.unref();
  const startLimitMs = Number(process.env.PROJECTOR_START_LIMIT_MS ?? 90_000);
  const heartbeat = startHeartbeat(settings.dataDirectory, {
    live: () => running.projector.joined,
    progress: () => running.projector.progress,
    startLimitMs,
    onStartTimeout: () => {
      log.error('projector did not join its consumer group; exiting so that it is started again', { startLimitMs });
      // Nothing was consumed, so nothing is lost by not closing the consumer (which may be the part stuck).
      void flushLogs().then(() => process.exit(1));
    },
  });
  const stop = async (signal: string) => {
    log.info('projector stopping', { signal });
    heartbeat.stop();
    await running.close();
    await flushLogs();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error: unknown) => {
  log.error('projector failed', { error: error instanceof Error ? error.message : String(error) });
  void flushLogs().then(() => process.exit(1));
});
