/**
 * Installs the clients (the agent CLIs and the SDKs) once per run, before any test file starts, and
 * hands their paths to the suite. Without the clients the suite fails: a compatibility matrix that skips itself would report
 * nothing while looking green. `CLIENTS_SUITE_MAY_SKIP=1` (a laptop offline) turns that into a loud skip.
 */
import type { TestProject } from 'vitest/node';
import { type InstalledClient, installClients } from './install-clients.ts';

export type ClientInstalls = { installed: InstalledClient[] } | { skipped: string };

declare module 'vitest' {
  export interface ProvidedContext {
    clientInstalls: ClientInstalls;
  }
}

export default async function setup(project: TestProject): Promise<void> {
  try {
    project.provide('clientInstalls', { installed: await installClients() });
  } catch (error) {
    const reason = `the clients could not be installed from npm or PyPI: ${String(error)}`;
    if (process.env.CLIENTS_SUITE_MAY_SKIP !== '1') {
      throw new Error(
        `${reason}\n(set CLIENTS_SUITE_MAY_SKIP=1 to skip the clients suite on a machine without the registry)`,
      );
    }
    console.warn(`\n${'='.repeat(72)}\nSKIPPED: the clients suite. ${reason}\n${'='.repeat(72)}\n`);
    project.provide('clientInstalls', { skipped: reason });
  }
}
