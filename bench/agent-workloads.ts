/**
 * @module bench/agent-workloads
 * Agent-sized traffic: seeded agent turns (agent-bodies.ts) of 66 KB and 200 KB in the chat, messages,
 * responses and Gemini formats, same-format and converted, streamed and not, sent to the embedded
 * gateway, the parse ceiling (parse, check the model, forward the original bytes) and the Node ceiling
 * (parse and re-serialise) in alternating windows, the order rotating by one target a round, so the
 * drift of a shared machine falls on all three alike. Each window records requests a second, the CPU
 * per request of the process tree and of its main (relay) thread.
 *
 * Standalone: `npx tsx bench/agent-workloads.ts [--quick] [--match='chat → openai, 66|tiny'] [--rounds=n]`
 * prints the section; `npm run bench` runs it as one phase and reports it with its targets
 * (report-agents.ts). BENCH_BASELINE_BUNDLE=<other dist>/gateway/main.js adds another build as a
 * fourth target in the same windows (its figures are in the log lines).
 */

import { execFileSync } from 'node:child_process';
import { type AgentFormat, agentTurn } from './agent-bodies.ts';
import { type AgentPlan, type AgentWorkload, type ChannelKind, TARGET_LABELS } from './agent-plan.ts';
import { gatewayEmbeddedTarget } from './gateway-targets.ts';
import { closedLoop, type RequestShape } from './load.ts';
import { median } from './paired.ts';
import { forkTs, isMain, ROOT, threadCpuMs, treeCpuMs } from './processes.ts';
import {
  ANTHROPIC_MODEL,
  CLIENT_KEY,
  configureUpstream,
  ensureWorkDirectories,
  GEMINI_MODEL,
  OPENAI_MODEL,
  type RunningTarget,
} from './targets.ts';

export interface WindowFigures {
  rps: number[];
  cpuUs: number[];
  mainCpuUs: number[];
  errors: number;
  firstError: string | null;
}

export interface WorkloadResult {
  workload: AgentWorkload;
  bodyBytes: number;
  /** in TARGET_LABELS order */
  targets: WindowFigures[];
}

export interface AgentWorkloadsResult {
  plan: Omit<AgentPlan, 'workloads'>;
  workloads: WorkloadResult[];
}

const MODELS: Record<ChannelKind, string> = { openai: OPENAI_MODEL, anthropic: ANTHROPIC_MODEL, gemini: GEMINI_MODEL };

function clientPath(format: AgentFormat, model: string, stream: boolean): string {
  if (format === 'chat') return '/v1/chat/completions';
  if (format === 'messages') return '/v1/messages';
  if (format === 'responses') return '/v1/responses';
  return `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`;
}

function bodyOf(work: AgentWorkload, model: string): string {
  if (work.bytes > 0) return agentTurn(work.format, model, work.bytes, work.stream);
  const messages = [{ role: 'user', content: 'Hello! Say something short.' }];
  return JSON.stringify({ model, messages, max_tokens: 64, ...(work.stream ? { stream: true } : {}) });
}

/** A request of `work` to the gateway `gateway` (its key is the one its OpenAI endpoint carries). */
export function agentShape(gateway: RunningTarget, work: AgentWorkload, body = bodyOf(work, MODELS[work.channel])) {
  const key = gateway.openai!.headers['authorization']!.slice('Bearer '.length);
  const path = clientPath(work.format, MODELS[work.channel], work.stream);
  return { origin: gateway.origin, path, headers: headersFor(work.format, key), body };
}

interface Running {
  origin: string;
  pid: number;
  shape(work: AgentWorkload, body: string): RequestShape;
}

function headersFor(format: AgentFormat, key: string): Record<string, string> {
  if (format === 'gemini') return { 'content-type': 'application/json', 'x-goog-api-key': key };
  const anthropic: Record<string, string> = format === 'messages' ? { 'anthropic-version': '2023-06-01' } : {};
  return { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...anthropic };
}

async function startCeiling(upstreamUrl: string, mode: 'parse' | 'reserialise') {
  const { child, port } = await forkTs(`agent-ceiling-${mode}`, 'bench/node-ceiling.ts', {
    args: [upstreamUrl, CLIENT_KEY, mode],
  });
  const running: Running = {
    origin: `http://127.0.0.1:${port}`,
    pid: child.pid,
    // The ceilings forward the client's path; the fake upstream answers a Responses body at chat's.
    shape: (work, body) => {
      const path =
        work.format === 'responses'
          ? '/v1/chat/completions'
          : clientPath(work.format, MODELS[work.channel], work.stream);
      // The ceilings take a bearer key in every format.
      return { origin: running.origin, path, headers: headersFor('chat', CLIENT_KEY), body };
    },
  };
  return { running, stop: () => child.stop() };
}

async function startBaseline(context: Parameters<typeof gatewayEmbeddedTarget.start>[0]) {
  const own = process.env.BENCH_GATEWAY_BUNDLE;
  process.env.BENCH_GATEWAY_BUNDLE = process.env.BENCH_BASELINE_BUNDLE;
  try {
    return await gatewayEmbeddedTarget.start(context);
  } finally {
    if (own === undefined) delete process.env.BENCH_GATEWAY_BUNDLE;
    else process.env.BENCH_GATEWAY_BUNDLE = own;
  }
}

async function window(target: Running, shape: RequestShape, plan: AgentPlan) {
  let tree = 0;
  let main = 0;
  // CPU counted from the end of the window's unmeasured warm-up.
  const mark = setTimeout(() => {
    tree = treeCpuMs(target.pid);
    main = threadCpuMs(target.pid);
  }, plan.windowWarmupMs);
  const result = await closedLoop(shape, {
    concurrency: plan.concurrency,
    durationMs: plan.windowMs,
    warmupMs: plan.windowWarmupMs,
  });
  clearTimeout(mark);
  const perRequest = (ms: number) => (ms * 1000) / Math.max(1, result.requests);
  return {
    result,
    cpuUs: perRequest(treeCpuMs(target.pid) - tree),
    mainCpuUs: perRequest(threadCpuMs(target.pid) - main),
  };
}

export async function measureAgentWorkloads(
  upstreamUrl: string,
  plan: AgentPlan,
  log: (message: string) => void,
): Promise<AgentWorkloadsResult> {
  await configureUpstream(upstreamUrl, { chunks: 6, delayMs: 5 });
  const context = { upstreamUrl, quick: true, profileDirectory: null, log };
  const gateway = await gatewayEmbeddedTarget.start(context);
  const parse = await startCeiling(upstreamUrl, 'parse');
  const node = await startCeiling(upstreamUrl, 'reserialise');
  const targets: Running[] = [
    {
      origin: gateway.origin,
      pid: gateway.pid,
      shape: (work, body) => agentShape(gateway, work, body),
    },
    parse.running,
    node.running,
  ];
  // BENCH_BASELINE_BUNDLE: another build's gateway as a fourth target in the same windows (an A/B).
  const baseline = process.env.BENCH_BASELINE_BUNDLE ? await startBaseline(context) : null;
  if (baseline)
    targets.push({
      origin: baseline.origin,
      pid: baseline.pid,
      shape: (work, body) => agentShape(baseline, work, body),
    });
  const results: WorkloadResult[] = [];
  try {
    for (const work of plan.workloads) {
      const body = bodyOf(work, MODELS[work.channel]);
      const figures = targets.map(
        (): WindowFigures => ({ rps: [], cpuUs: [], mainCpuUs: [], errors: 0, firstError: null }),
      );
      for (let round = 0; round < plan.rounds; round++) {
        for (let step = 0; step < targets.length; step++) {
          const index = (round + step) % targets.length;
          const measured = await window(targets[index]!, targets[index]!.shape(work, body), plan);
          const figure = figures[index]!;
          figure.rps[round] = measured.result.rps;
          figure.cpuUs[round] = measured.cpuUs;
          figure.mainCpuUs[round] = measured.mainCpuUs;
          figure.errors += measured.result.errors;
          figure.firstError ??= measured.result.firstError;
        }
      }
      log(
        `  agent ${work.id}: ${figures.map((f, i) => `${TARGET_LABELS[i] ?? 'baseline bundle'} ${median(f.rps).toFixed(0)} req/s ${median(f.cpuUs).toFixed(0)} µs (${median(f.mainCpuUs).toFixed(0)})`).join('; ')}`,
      );
      results.push({ workload: work, bodyBytes: Buffer.byteLength(body), targets: figures });
    }
  } finally {
    await gateway.stop();
    await baseline?.stop();
    await parse.stop();
    await node.stop();
  }
  const { workloads: _, ...rest } = plan;
  return { plan: rest, workloads: results };
}

if (isMain(import.meta.url)) {
  const quick = process.argv.includes('--quick');
  ensureWorkDirectories();
  execFileSync('npm', ['run', '--silent', 'build:server'], { cwd: ROOT, stdio: 'inherit' });
  const { agentSection } = await import('./report-agents.ts');
  const upstream = await forkTs('agent-upstream', 'bench/fake-upstream.ts');
  try {
    const { agentPlan } = await import('./plans.ts');
    const plan = agentPlan(quick);
    // --match=a|b keeps the workloads whose id holds a or b; --rounds=n sets the rounds.
    const option = (name: string) => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
    const match = option('match')?.split('|');
    if (match) plan.workloads = plan.workloads.filter((work) => match.some((part) => work.id.includes(part)));
    if (option('rounds')) plan.rounds = Number(option('rounds'));
    const result = await measureAgentWorkloads(`http://127.0.0.1:${upstream.port}`, plan, console.log);
    console.log(agentSection(result).join('\n'));
  } finally {
    await upstream.child.stop();
  }
}
