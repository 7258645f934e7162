/**
 * The embedded store's disk full (a tmpfs filled to the last byte): requests are still relayed, a
 * console write gets a clear 507, no event is lost once space is back, and `PRAGMA integrity_check`
 * stays ok. Figures go to test/artifacts/faults/embedded-disk-full.json (quoted in docs/reliability.md).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { ConsoleClient } from '../support/console-client.ts';
import { compareCounts, FaultReport } from './fault-report.ts';
import { eventCounts, index, type Outcome, send, settle, startGateway } from './support/embedded-gateway.ts';

const report = new FaultReport();
afterAll(() => report.write('embedded-disk-full'));

/** Mounts a tmpfs of `sizeMb` (root only); null when this machine cannot. */
function mountTmpfs(sizeMb: number): string | null {
  const directory = mkdtempSync(path.join(tmpdir(), 'gateway-diskfull-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m`, 'tmpfs', directory], { stdio: 'pipe' });
    return directory;
  } catch (error) {
    rmSync(directory, { recursive: true, force: true });
    console.warn(`disk-full case skipped: cannot mount a tmpfs here (${String(error).split('\n')[0]})`);
    return null;
  }
}

const tmpfs = mountTmpfs(8);

describe.skipIf(!tmpfs)('the embedded store on a full disk', () => {
  afterAll(() => {
    if (!tmpfs) return;
    execFileSync('umount', [tmpfs]);
    rmSync(tmpfs, { recursive: true, force: true });
  });

  it('keeps relaying, answers console writes with a clear error, loses no event once space is back, and stays intact', async () => {
    const dataDirectory = path.join(tmpfs!, 'data');
    mkdirSync(dataDirectory);
    const gateway = await startGateway({}, dataDirectory);
    const filler = path.join(tmpfs!, 'filler');
    try {
      // Fill the disk to the last byte. With 16 KiB left, whether the small console write below
      // still fitted depended on how the appends before it had used them (SQLite writes a failing
      // transaction's frames until the disk refuses, and a smaller write after it can reuse them):
      // a CI run on a loaded machine got 201 where earlier runs had 507.
      const { bavail, bsize } = statfsSync(tmpfs!);
      writeFileSync(filler, Buffer.alloc(bavail * bsize));
      const sentIds = Array.from({ length: 40 }, (_, index) => `diskfull-${index}`);
      const outcomes: Outcome[] = [];
      for (const id of sentIds)
        outcomes.push(await send(gateway, index(id) % 2 ? '/v1/messages' : '/v1/chat/completions', false, id));
      const registration = await new ConsoleClient(gateway.harness.baseUrl).call('POST', '/api/auth/register', {
        email: 'diskfull@example.com',
        password: 'diskfull-password',
      });
      // Space back: the publisher's retries append what was held in memory.
      rmSync(filler);
      await gateway.harness.runtime.publisher.flush();
      await settle(gateway.harness);
      const { completed } = eventCounts(gateway.harness);
      const { lost, doubleCounted } = compareCounts(sentIds, completed);
      const succeeded = outcomes.filter((outcome) => outcome.ok).length;
      const statuses: Record<string, number> = {};
      for (const outcome of outcomes) statuses[outcome.status] = (statuses[outcome.status] ?? 0) + 1;
      const database = new Database(path.join(dataDirectory, 'gateway.db'), { readonly: true });
      const integrity = database.pragma('integrity_check', { simple: true });
      database.close();
      report.add({
        case: 'embedded store disk full',
        sent: sentIds.length,
        succeeded,
        failed: sentIds.length - succeeded,
        healthyUpstream5xx: outcomes.filter((outcome) => outcome.status >= 500).length,
        lost,
        doubleCounted,
        statuses,
        note: `console registration on the full disk: ${registration.status} ${JSON.stringify(registration.body)}; integrity_check: ${integrity}`,
      });
      expect(integrity).toBe('ok');
      expect(registration.status).toBe(507);
      expect(registration.body.error.code).toBe('storage_full');
      expect(succeeded).toBe(sentIds.length);
      expect(lost).toBe(0);
      expect(doubleCounted).toBe(0);
    } finally {
      rmSync(filler, { force: true });
      await gateway.harness.stop();
    }
  }, 90_000);
});
