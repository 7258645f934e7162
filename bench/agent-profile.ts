/**
 * @module bench/agent-profile
 * A CPU profile of the gateway on one agent workload: the bundle under `--cpu-prof`, 32 clients for
 * the given seconds after one of warm-up, the relay thread's profile summed up (self time by function
 * and by module, the repository's own functions inclusive).
 *
 *   npx tsx bench/agent-profile.ts <format> <channel> [bytes=66000] [seconds=8]
 *   e.g. `chat openai` (same format) or `messages openai` (converted); writes .bench/profiles/agent-*.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AgentFormat } from './agent-bodies.ts';
import type { ChannelKind } from './agent-plan.ts';
import { agentShape } from './agent-workloads.ts';
import { gatewayEmbeddedTarget } from './gateway-targets.ts';
import { closedLoop } from './load.ts';
import { forkTs, ROOT, WORK } from './processes.ts';
import { profileText, summariseProfile } from './profile.ts';
import { configureUpstream, ensureWorkDirectories } from './targets.ts';

const [format, channel, bytes = '66000', seconds = '8'] = process.argv.slice(2) as [
  AgentFormat,
  ChannelKind,
  string?,
  string?,
];
if (!format || !channel) throw new Error('usage: agent-profile.ts <format> <channel> [bytes] [seconds]');
ensureWorkDirectories();
execFileSync('npm', ['run', '--silent', 'build:server'], { cwd: ROOT, stdio: 'inherit' });
const directory = path.join(WORK, 'profiles', `agent-${Date.now()}`);
mkdirSync(directory, { recursive: true });
const upstream = await forkTs('agent-profile-upstream', 'bench/fake-upstream.ts');
const upstreamUrl = `http://127.0.0.1:${upstream.port}`;
const log = (message: string) => console.log(message);
const spawned = performance.now();
let skipMs = 0;
try {
  await configureUpstream(upstreamUrl, { chunks: 6, delayMs: 5 });
  const gateway = await gatewayEmbeddedTarget.start({ upstreamUrl, quick: true, profileDirectory: directory, log });
  try {
    const work = { id: 'profile', format, channel, bytes: Number(bytes), stream: false };
    const shape = agentShape(gateway, work);
    await closedLoop(shape, { concurrency: 32, durationMs: 1000, warmupMs: 0 });
    skipMs = performance.now() - spawned;
    const result = await closedLoop(shape, { concurrency: 32, durationMs: Number(seconds) * 1000, warmupMs: 0 });
    console.log(`${result.rps.toFixed(0)} req/s, ${result.errors} errors ${result.firstError ?? ''}`);
  } finally {
    await gateway.stop();
  }
} finally {
  await upstream.child.stop();
}
const [largest] = readdirSync(directory)
  .filter((name) => name.endsWith('.cpuprofile'))
  .map((name) => ({ name, size: statSync(path.join(directory, name)).size }))
  .sort((left, right) => right.size - left.size);
if (!largest) throw new Error(`no profile in ${directory}`);
const file = path.join(WORK, 'profiles', `agent-${format}-${channel}.cpuprofile`);
renameSync(path.join(directory, largest.name), file);
rmSync(directory, { recursive: true, force: true });
const text = profileText(summariseProfile(file, 25, skipMs));
writeFileSync(file.replace(/\.cpuprofile$/, '.txt'), `${text}\n`);
console.log(text);
