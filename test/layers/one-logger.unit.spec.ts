/**
 * Every role logs through platform/log.ts, so every line has the same shape (time, level, msg) and the
 * hot path's writer is the measured one. A module that prints its own JSON line, or a console line
 * beside the logger, fails here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../platform/project-root.ts';

const serverFolders = ['contracts', 'gateway', 'platform', 'projector', 'stores'];
const consoleCall = /\bconsole\.(log|info|warn|error|debug)\(/;

it('no server module writes to the console; they log through platform/log.ts', () => {
  const modules = serverFolders.flatMap((folder) =>
    readdirSync(path.join(PROJECT_ROOT, folder), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.spec.ts'))
      .map((file) => path.join(folder, file)),
  );
  expect(modules.length).toBeGreaterThan(100);
  const offenders = modules.flatMap((file) =>
    readFileSync(path.join(PROJECT_ROOT, file), 'utf8')
      .split('\n')
      .flatMap((line, index) =>
        consoleCall.test(line) && !/^\s*(\*|\/\/)/.test(line) ? [`${file}:${index + 1}`] : [],
      ),
  );
  expect(offenders).toEqual([]);
});
