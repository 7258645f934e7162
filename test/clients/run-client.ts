/**
 * Runs one client (an agent CLI, or an SDK's script) headless, in a home and a work directory of its own, and captures what it did: exit
 * code, output and time. A run past its time is killed with its whole process group (the clients start
 * helpers of their own) and reported as timed out.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ClientDefinition, RunContext } from './client-definitions.ts';

export interface ClientRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  seconds: number;
}

export function newRunDirectories(): { root: string; home: string; workDirectory: string } {
  const root = mkdtempSync(path.join(tmpdir(), 'gateway-client-'));
  return { root, home: path.join(root, 'home'), workDirectory: path.join(root, 'work') };
}

export function runClient(
  client: ClientDefinition,
  bin: string,
  leadingArgs: string[],
  context: RunContext,
  timeoutMs: number,
): Promise<ClientRun> {
  const { args, env } = client.command(context);
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(bin, [...leadingArgs, ...args], {
      cwd: context.workDirectory,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, timeoutMs);
    child.once('close', (exitCode) => {
      clearTimeout(timer);
      resolve({ exitCode, stdout, stderr, timedOut, seconds: Math.round((Date.now() - started) / 100) / 10 });
    });
  });
}
