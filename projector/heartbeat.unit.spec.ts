import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startHeartbeat } from './heartbeat.ts';

function directory(): string {
  return path.join(mkdtempSync(path.join(tmpdir(), 'heartbeat-')), 'data');
}

describe('projector heartbeat (the container health check reads its age)', () => {
  afterEach(() => vi.useRealTimers());

  it('writes the file only while the consumer is in its group, rewrites it, and removes it on stop', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    const data = directory();
    const file = path.join(data, 'projector.alive');
    let live = false;
    let applied = 0;
    const onStartTimeout = vi.fn();
    const heartbeat = startHeartbeat(data, {
      live: () => live,
      progress: () => ({ applied }),
      onStartTimeout,
      startLimitMs: 10_000,
      intervalMs: 1_000,
    });
    expect(existsSync(file)).toBe(false);
    live = true;
    vi.advanceTimersByTime(1_000);
    expect(JSON.parse(readFileSync(file, 'utf8')).applied).toBe(0);
    applied = 7;
    vi.advanceTimersByTime(1_000);
    expect(JSON.parse(readFileSync(file, 'utf8')).applied).toBe(7);
    live = false;
    vi.advanceTimersByTime(1_000);
    expect(existsSync(file), 'a consumer that left its group makes the health check fail').toBe(false);
    vi.advanceTimersByTime(20_000);
    expect(
      onStartTimeout,
      'it had joined once: a later loss is for the health check, not a failed start',
    ).not.toHaveBeenCalled();
    heartbeat.stop();
    expect(existsSync(file)).toBe(false);
  });

  it('reports a failed start once when the consumer never joins within the limit', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    const onStartTimeout = vi.fn();
    startHeartbeat(directory(), {
      live: () => false,
      progress: () => ({}),
      onStartTimeout,
      startLimitMs: 10_000,
      intervalMs: 1_000,
    });
    vi.advanceTimersByTime(9_000);
    expect(onStartTimeout).not.toHaveBeenCalled();
    vi.advanceTimersByTime(5_000);
    expect(onStartTimeout).toHaveBeenCalledTimes(1);
  });
});
