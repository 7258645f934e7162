/**
 * @module projector/rebuild
 * `npm run rebuild`: drops every projection and rebuilds it from the event log, printing progress.
 * Stop the gateway (embedded) or the projector (cluster) first.
 */
import { flushLogs, log } from '../platform/log.ts';
import { readStorageSettings } from '../platform/storage-settings.ts';
import { rebuildCluster } from '../stores/cluster/rebuild.ts';
import { rebuildEmbedded } from '../stores/embedded/rebuild.ts';

/** `unit`: the embedded log is counted in events, Kafka's in messages (each of one event or several). */
function reporter(unit: 'events' | 'messages') {
  return (done: number, total: number): void => {
    const percent = total > 0 ? Math.min(100, (done / total) * 100).toFixed(1) : '100.0';
    process.stdout.write(`\rrebuilding projections: ${done} of ${total} ${unit} (${percent}%)`);
  };
}

async function main(): Promise<void> {
  const settings = readStorageSettings();
  const started = performance.now();
  const applied = settings.cluster
    ? await rebuildCluster(settings.cluster, reporter('messages'))
    : rebuildEmbedded(settings.dataDirectory, reporter('events'), {
        responseRetentionMs: settings.responseRetentionMs,
      });
  process.stdout.write(
    `\nrebuilt from ${applied} events in ${((performance.now() - started) / 1000).toFixed(1)} s (${settings.cluster ? 'cluster' : 'embedded'})\n`,
  );
  process.exit(0);
}

main().catch((error: unknown) => {
  log.error('rebuild failed', { error: error instanceof Error ? error.message : String(error) });
  void flushLogs().then(() => process.exit(1));
});
