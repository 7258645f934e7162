/**
 * @module projector/heartbeat
 * The projector has no HTTP port, so a container health check reads the age of a file it rewrites while it
 * runs: written only while its consumer has joined its group (so after it has connected to Kafka, Redis
 * and ClickHouse), from its event loop, so a hung, stopped or groupless projector lets the file go stale.
 * A consumer that has not joined within the start limit (seen on a brand-new broker: kafkajs never joins
 * when it started before the broker's offsets topic was ready) is a failed start: the caller exits so
 * that the supervisor (Docker's restart policy, systemd) starts it again.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface Heartbeat {
  stop(): void;
}

export interface HeartbeatOptions {
  /** whether the projector is doing its work (its consumer is in its group) */
  live: () => boolean;
  progress: () => object;
  /** called once when `live` has not become true within startLimitMs of the start */
  onStartTimeout: () => void;
  startLimitMs: number;
  intervalMs?: number;
}

export function startHeartbeat(dataDirectory: string, options: HeartbeatOptions): Heartbeat {
  const file = path.join(dataDirectory, 'projector.alive');
  const startedAt = Date.now();
  let everLive = false;
  const beat = () => {
    if (!options.live()) {
      rmSync(file, { force: true });
      if (!everLive && Date.now() - startedAt >= options.startLimitMs) {
        clearInterval(timer);
        options.onStartTimeout();
      }
      return;
    }
    everLive = true;
    try {
      mkdirSync(dataDirectory, { recursive: true });
      writeFileSync(file, `${JSON.stringify({ at: new Date().toISOString(), ...options.progress() })}\n`);
    } catch {
      // A data directory that cannot be written makes the health check fail, which is the signal wanted.
    }
  };
  const timer = setInterval(beat, options.intervalMs ?? 5_000);
  timer.unref();
  beat();
  return {
    stop() {
      clearInterval(timer);
      rmSync(file, { force: true });
    },
  };
}
