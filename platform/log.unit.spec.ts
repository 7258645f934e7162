/**
 * The shared logger writes one JSON object per line (time, level, msg, then the fields), errors on
 * stderr, and `flushLogs` lets a role exit without losing lines still queued for a slow pipe. Each case
 * runs in a child process so that its real stdout and stderr are pipes, as under a process manager.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from './project-root.ts';

const logModule = pathToFileURL(path.join(PROJECT_ROOT, 'platform/log.ts')).href;

async function runChild(script: string): Promise<{ stdout: string; stderr: string; code: number | null }> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--input-type=module',
      '--eval',
      `const { log, flushLogs } = await import('${logModule}');\n${script}`,
    ],
    { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.once('close', (exit) => resolve(exit)));
  return { stdout, stderr, code };
}

const lines = (text: string) => text.split('\n').filter((line) => line !== '');

describe('platform/log', () => {
  it('writes one JSON object per line: time, level and msg first, then the fields; errors on stderr', async () => {
    const { stdout, stderr, code } = await runChild(`
      log.info('started', { port: 3000 });
      log.warn('slow', { ms: 12 });
      log.error('failed', { error: 'boom' });
      log.fatal('cannot start');
    `);
    expect(code).toBe(0);
    const out = lines(stdout).map((line) => JSON.parse(line));
    const err = lines(stderr).map((line) => JSON.parse(line));
    expect(out.map(({ time: _time, ...rest }) => rest)).toEqual([
      { level: 'info', msg: 'started', port: 3000 },
      { level: 'warn', msg: 'slow', ms: 12 },
    ]);
    expect(err.map(({ time: _time, ...rest }) => rest)).toEqual([
      { level: 'error', msg: 'failed', error: 'boom' },
      { level: 'fatal', msg: 'cannot start' },
    ]);
    for (const record of [...out, ...err]) {
      expect(Object.keys(record).slice(0, 3)).toEqual(['time', 'level', 'msg']);
      expect(new Date(record.time).toISOString()).toBe(record.time);
    }
  });

  it('loses no line queued for a pipe when the process exits after flushLogs', async () => {
    // 4 MiB: far more than a pipe holds, so most of it is still queued in the process at exit.
    const script = (flush: boolean) => `
      const padding = 'x'.repeat(2048);
      for (let index = 0; index < 2048; index++) log.info('line', { index, padding });
      ${flush ? 'await flushLogs();' : ''}
      process.exit(0);
    `;
    const flushed = await runChild(script(true));
    expect(lines(flushed.stdout)).toHaveLength(2048);
    expect(JSON.parse(lines(flushed.stdout).at(-1)!).index).toBe(2047);
    // Without the flush the same exit drops lines: what the flush is for (and proof the case can fail).
    const unflushed = await runChild(script(false));
    expect(lines(unflushed.stdout).length).toBeLessThan(2048);
  });

  it('does not crash when the reader of stdout has gone away', async () => {
    const { stderr, code } = await runChild(`
      process.stdout.destroy(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      await new Promise((resolve) => setTimeout(resolve, 50));
      log.error('still here');
    `);
    expect(code).toBe(0);
    expect(JSON.parse(lines(stderr)[0]!).msg).toBe('still here');
  });
});
