/**
 * @module platform/project-root
 * The repository's root directory, found by walking up from this module to the package.json. Every
 * role runs both from source (tsx) and from the bundle in dist/, where this module sits at another
 * depth, so paths to the console, the store worker and other files are resolved from here rather than `../`.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(start: string): string {
  for (let directory = start; ; directory = path.dirname(directory)) {
    if (existsSync(path.join(directory, 'package.json'))) return directory;
    if (path.dirname(directory) === directory) throw new Error(`no package.json above ${start}`);
  }
}

export const PROJECT_ROOT = findRoot(path.dirname(fileURLToPath(import.meta.url)));
