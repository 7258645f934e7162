/**
 * @module bench/report-agents
 * The agent workloads' section of the report (agent-workloads.ts): per workload the medians of the
 * gateway, the parse ceiling and the Node ceiling, the ratios taken within each round, and the
 * targets for agent-sized traffic, judged on those ratios:
 *
 * - same format, 66 KB and 200 KB: ≥ 0.9 × the parse ceiling's requests a second;
 * - converted: ≥ 0.6 × the parse ceiling's;
 * - the tiny body: ≥ 0.8 × the Node ceiling's;
 * - relay-thread CPU per 66 KB same-format request (chat → OpenAI): ≤ 1.15 × the parse ceiling's.
 */
import { isConverted, TARGET_LABELS } from './agent-plan.ts';
import type { AgentWorkloadsResult, WorkloadResult } from './agent-workloads.ts';
import { median } from './paired.ts';
import { fixed, mark, table, whole } from './report-text.ts';

const GATEWAY = 0;
const PARSE = 1;
const NODE = 2;

/** The median over rounds of a target's figure divided by another's in the same round. */
function ratio(result: WorkloadResult, key: 'rps' | 'cpuUs' | 'mainCpuUs', top: number, bottom: number): number {
  const a = result.targets[top]![key];
  const b = result.targets[bottom]![key];
  return median(a.map((value, round) => value / b[round]!));
}

export interface AgentGoal {
  label: string;
  limit: string;
  measured: number;
  met: boolean;
}

export function agentGoals(result: AgentWorkloadsResult): AgentGoal[] {
  const goals: AgentGoal[] = [];
  for (const each of result.workloads) {
    const { workload } = each;
    if (workload.bytes === 0) {
      const measured = ratio(each, 'rps', GATEWAY, NODE);
      goals.push({ label: `${workload.id}: req/s / Node ceiling`, limit: '≥ 0.8', measured, met: measured >= 0.8 });
      continue;
    }
    const floor = isConverted(workload) ? 0.6 : 0.9;
    const measured = ratio(each, 'rps', GATEWAY, PARSE);
    goals.push({
      label: `${workload.id}: req/s / parse ceiling`,
      limit: `≥ ${floor}`,
      measured,
      met: measured >= floor,
    });
    if (workload.format === 'chat' && !isConverted(workload) && workload.bytes < 100_000 && !workload.stream) {
      const cpu = ratio(each, 'mainCpuUs', GATEWAY, PARSE);
      goals.push({
        label: `${workload.id}: relay-thread CPU / parse ceiling`,
        limit: '≤ 1.15',
        measured: cpu,
        met: cpu <= 1.15,
      });
    }
  }
  return goals;
}

export function agentSection(result: AgentWorkloadsResult): string[] {
  const { plan } = result;
  const rows = result.workloads.map((each) => {
    const [gateway, parse, node] = each.targets.map((figures) => ({
      rps: median(figures.rps),
      cpu: median(figures.cpuUs),
      main: median(figures.mainCpuUs),
    }));
    return [
      each.workload.id,
      whole(each.bodyBytes),
      `${whole(gateway!.rps)} / ${whole(parse!.rps)} / ${whole(node!.rps)}`,
      `${whole(gateway!.cpu)} (${whole(gateway!.main)}) / ${whole(parse!.cpu)} / ${whole(node!.cpu)}`,
      fixed(ratio(each, 'rps', GATEWAY, PARSE)),
      fixed(ratio(each, 'cpuUs', GATEWAY, PARSE)),
      fixed(ratio(each, 'rps', GATEWAY, NODE)),
    ];
  });
  const failures = result.workloads.flatMap((each) =>
    each.targets.flatMap((figures, index) =>
      figures.errors
        ? [`${each.workload.id}, ${TARGET_LABELS[index]}: ${figures.errors} failed, ${figures.firstError}`]
        : [],
    ),
  );
  const goals = agentGoals(result);
  return [
    '## Agent-sized requests',
    '',
    `Seeded agent turns (bench/agent-bodies.ts) at c=${plan.concurrency}, ${plan.rounds} round(s) of ${plan.windowMs / 1000} s windows after ${plan.windowWarmupMs / 1000} s of unmeasured load, gateway, parse ceiling and Node ceiling alternating. The parse ceiling parses the body, checks the model and forwards the original bytes; the Node ceiling parses and re-serialises. Ratios are the median of each round's ratio; CPU is the whole process tree's, the gateway's relay thread in brackets.`,
    '',
    table(
      [
        'workload',
        'bytes',
        'req/s: gateway / parse / Node',
        'CPU µs a request: gateway (relay) / parse / Node',
        'req/s ÷ parse',
        'CPU ÷ parse',
        'req/s ÷ Node',
      ],
      rows,
    ),
    '',
    failures.length ? `Failed requests: ${failures.join('; ')}` : 'No failed requests.',
    '',
    table(
      ['target', 'limit', 'measured', ''],
      goals.map((goal) => [goal.label, goal.limit, fixed(goal.measured), mark(goal.met)]),
      [1, 3],
    ),
    '',
  ];
}
