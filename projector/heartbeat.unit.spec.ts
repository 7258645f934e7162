import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startHeartbeat } from './heartbeat.ts';

describe('projector heartbeat (the container health check reads its age)', () => {
  afterEach(() => vi.useRealTimers());

  it('writes the file at once, rewrites it on every interval and removes it on stop', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    const directory = path.join(mkdtempSync(path.join(tmpdir(), 'heartbeat-')), 'data');
    let applied = 0;
    const heartbeat = startHeartbeat(directory, () => ({ applied }), 1_000);
    const file = path.join(directory, 'projector.alive');
    expect(JSON.parse(readFileSync(file, 'utf8')).applied).toBe(0);
    applied = 7;
    vi.advanceTimersByTime(1_000);
    expect(JSON.parse(readFileSync(file, 'utf8')).applied).toBe(7);
    expect(statSync(file).size).toBeGreaterThan(0);
    heartbeat.stop();
    expect(existsSync(file)).toBe(false);
  });
});
