/**
 * @module projector/heartbeat
 * The projector has no HTTP port, so a container health check reads the age of a file it rewrites while it
 * runs: written only after the projector has connected to Kafka, Redis and ClickHouse, and rewritten from
 * its event loop, so a hung or stopped projector lets the file go stale.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface Heartbeat {
  stop(): void;
}

export function startHeartbeat(dataDirectory: string, progress: () => object, intervalMs = 10_000): Heartbeat {
  const file = path.join(dataDirectory, 'projector.alive');
  const beat = () => {
    try {
      mkdirSync(dataDirectory, { recursive: true });
      writeFileSync(file, `${JSON.stringify({ at: new Date().toISOString(), ...progress() })}\n`);
    } catch {
      // A data directory that cannot be written makes the health check fail, which is the signal wanted.
    }
  };
  beat();
  const timer = setInterval(beat, intervalMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      rmSync(file, { force: true });
    },
  };
}
