/**
 * @module bench/agent-plan
 * Which agent workloads a run measures (agent-workloads.ts): format and channel pairs, same-format and
 * converted, body sizes, streamed or not; and which targets they are sent to.
 */
import type { AgentFormat } from './agent-bodies.ts';

export type ChannelKind = 'openai' | 'anthropic' | 'gemini';

export interface AgentWorkload {
  id: string;
  format: AgentFormat;
  channel: ChannelKind;
  /** 0: the bench's tiny chat body */
  bytes: number;
  stream: boolean;
}

export interface AgentPlan {
  rounds: number;
  windowMs: number;
  windowWarmupMs: number;
  concurrency: number;
  workloads: AgentWorkload[];
}

export const TARGET_LABELS = ['gateway (embedded)', 'parse ceiling', 'Node ceiling'] as const;

const SAME: Array<[AgentFormat, ChannelKind]> = [
  ['chat', 'openai'],
  ['messages', 'anthropic'],
  ['gemini', 'gemini'],
];
/** The conversions the targets name (messages → OpenAI, chat → Anthropic, responses → chat) and Gemini's. */
const CONVERTED: Array<[AgentFormat, ChannelKind]> = [
  ['messages', 'openai'],
  ['chat', 'anthropic'],
  ['responses', 'openai'],
  ['gemini', 'openai'],
];

export const isConverted = (workload: AgentWorkload) =>
  !SAME.some(([format, channel]) => format === workload.format && channel === workload.channel);

function workload(format: AgentFormat, channel: ChannelKind, bytes: number, stream: boolean): AgentWorkload {
  const size = bytes === 0 ? 'tiny' : `${Math.round(bytes / 1000)} KB`;
  return { id: `${format} → ${channel}, ${size}${stream ? ', streamed' : ''}`, format, channel, bytes, stream };
}

/** The full run: every pair at both sizes, streamed at 66 KB, and the tiny body. */
export function fullWorkloads(): AgentWorkload[] {
  const pairs = [...SAME, ...CONVERTED];
  return [
    workload('chat', 'openai', 0, false),
    ...pairs.flatMap(([format, channel]) => [
      workload(format, channel, 66_000, false),
      workload(format, channel, 200_000, false),
      workload(format, channel, 66_000, true),
    ]),
  ];
}

/** The quick run (CI): one same-format and one converted workload, and the tiny body. */
export function quickWorkloads(): AgentWorkload[] {
  return [
    workload('chat', 'openai', 0, false),
    workload('chat', 'openai', 66_000, false),
    workload('messages', 'openai', 66_000, false),
  ];
}
