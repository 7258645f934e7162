#!/usr/bin/env node
/**
 * `npm test`: every tier of the suite, cheapest first, and how long each took.
 *
 *   node scripts/test-tiers.mjs            all tiers (fast, then faults and browser, then clients, then cluster)
 *   node scripts/test-tiers.mjs fast       the named tiers only: fast, real (faults and browser), clients, cluster
 *
 * The fast tier (lint, types, unit and embedded integration tests) runs first and stops the run when it
 * fails, so that a broken change is known within minutes. The faults and browser tiers run in one
 * vitest process, whose workers take their files in parallel. The clients tier installs Claude Code,
 * Codex and the Gemini CLI from npm (once, into a cache) and runs them against the gateway on every
 * channel kind (docs/clients.md); without the registry it fails, unless CLIENTS_SUITE_MAY_SKIP=1. The cluster tier runs alone: its suites
 * stop and start the shared servers and time what the cluster does under that.
 * The times are printed at the end and written to test/artifacts/tiers.json.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Each tier is a list of commands run in turn; a command is [program, ...arguments]. */
const tiers = {
  fast: [
    ['npx', 'biome', 'check', '.'],
    ['npx', 'tsc', '-p', '.'],
    ['npx', 'vue-tsc', '-p', 'console', '--noEmit'],
    ['npx', 'vitest', 'run', '--project', 'fast'],
  ],
  real: [['npx', 'vitest', 'run', '--project', 'faults', '--project', 'browser']],
  clients: [['npx', 'vitest', 'run', '--project', 'clients']],
  cluster: [['npx', 'vitest', 'run', '--project', 'cluster']],
};

function run([program, ...args]) {
  return new Promise((resolve) => {
    const child = spawn(program, args, { cwd: root, stdio: 'inherit' });
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !(name in tiers));
if (unknown.length > 0) {
  console.error(`unknown tier: ${unknown.join(', ')} (tiers: ${Object.keys(tiers).join(', ')})`);
  process.exit(2);
}
const chosen = Object.keys(tiers).filter((tier) => wanted.length === 0 || wanted.includes(tier));

const results = [];
let failed = false;
for (const tier of chosen) {
  const started = Date.now();
  let code = 0;
  for (const command of tiers[tier]) {
    console.log(`\n== ${tier}: ${command.join(' ')}`);
    code = await run(command);
    if (code !== 0) break;
  }
  results.push({ tier, seconds: Math.round((Date.now() - started) / 1000), passed: code === 0 });
  if (code !== 0) {
    failed = true;
    break;
  }
}

console.log('\n== tiers');
for (const { tier, seconds, passed } of results) {
  console.log(`${passed ? 'passed' : 'FAILED'}  ${String(seconds).padStart(5)} s  ${tier}`);
}
for (const tier of chosen.slice(results.length)) console.log(`not run         ${tier}`);
mkdirSync(path.join(root, 'test/artifacts'), { recursive: true });
writeFileSync(path.join(root, 'test/artifacts/tiers.json'), `${JSON.stringify(results, null, 2)}\n`);
process.exit(failed ? 1 : 0);
