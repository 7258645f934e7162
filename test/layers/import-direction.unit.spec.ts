/**
 * Layers point one way: the projector and the stores run in roles without the gateway (`npm run
 * projector`, `npm run rebuild`, the store worker), so their code takes logging, paths and settings from
 * platform/, and platform/ stands on nothing of the project. This test reads the import lines of every
 * module and fails on one that points the other way. Test files are left out: they may build fixtures
 * with the gateway's helpers (its event factory) without the modules depending on it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../platform/project-root.ts';

/** `import … from '…'`, `export … from '…'`, `import '…'` and `import('…')`, across line breaks. */
const specifierPattern = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g;

function importedPaths(source: string): string[] {
  return [...source.matchAll(specifierPattern)].map((match) => match[1]!);
}

function modulesUnder(folder: string): string[] {
  return readdirSync(path.join(PROJECT_ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.spec.ts'))
    .map((file) => path.join(folder, file));
}

/** Each `file → imported file` whose target lies in one of the forbidden top-level folders. */
function importsInto(folders: readonly string[], forbidden: readonly string[]): string[] {
  const crossings: string[] = [];
  for (const file of folders.flatMap(modulesUnder)) {
    const source = readFileSync(path.join(PROJECT_ROOT, file), 'utf8');
    for (const specifier of importedPaths(source)) {
      if (!specifier.startsWith('.')) continue;
      const target = path.normalize(path.join(path.dirname(file), specifier));
      if (forbidden.includes(target.split(path.sep)[0]!)) crossings.push(`${file} → ${target}`);
    }
  }
  return crossings;
}

describe('import direction', () => {
  it('finds static, re-export, side-effect and dynamic imports', () => {
    const source = [
      "import { log } from '../gateway/log.ts';",
      "import type {\n  Settings,\n} from '../gateway/config/settings.ts';",
      "export { thing } from './thing.ts';",
      "import '../setup.ts';",
      "const later = await import('../gateway/runtime.ts');",
    ].join('\n');
    expect(importedPaths(source)).toEqual([
      '../gateway/log.ts',
      '../gateway/config/settings.ts',
      './thing.ts',
      '../setup.ts',
      '../gateway/runtime.ts',
    ]);
  });

  it('reads the modules of projector/, stores/ and platform/', () => {
    for (const folder of ['projector', 'stores', 'platform']) expect(modulesUnder(folder).length).toBeGreaterThan(0);
    expect(modulesUnder('projector')).toContain(path.join('projector', 'main.ts'));
    expect(modulesUnder('stores')).toContain(path.join('stores', 'embedded', 'store-thread.ts'));
  });

  it('projector/ and stores/ import nothing from gateway/', () => {
    expect(importsInto(['projector', 'stores'], ['gateway'])).toEqual([]);
  });

  it('gateway/providers/ (readers, writers, converters) imports nothing from gateway/relay/', () => {
    const crossings = importsInto([path.join('gateway', 'providers')], ['gateway']).filter((crossing) =>
      crossing.split(' → ')[1]!.startsWith(path.join('gateway', 'relay') + path.sep),
    );
    expect(crossings).toEqual([]);
  });

  it('platform/ imports nothing from gateway/, projector/ or stores/', () => {
    expect(importsInto(['platform'], ['gateway', 'projector', 'stores'])).toEqual([]);
  });
});
