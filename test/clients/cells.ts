/**
 * The matrix's cells (a client, a channel kind, a check) and how one is judged: the client exited 0
 * and printed the expected text; the gateway served it on the endpoint of the client's format; for the tool loop the upstream also called the client's read-file
 * tool and then saw the file's content come back; and the usage the gateway recorded for the cell's
 * key is, request by request, what the upstream reported.
 */
import type { UsageRecorded } from '../../contracts/events/index.ts';
import { finalText, plainText, type UpstreamTurn } from './agent-upstream/agent-upstream.ts';
import type { ClientFormat, ClientName } from './client-definitions.ts';
import type { ChannelKind } from './client-gateway.ts';
import type { ClientRun } from './run-client.ts';

export type Check = 'text' | 'tool';
export const checks: Check[] = ['text', 'tool'];

export interface CellResult {
  client: ClientName;
  version: string;
  kind: ChannelKind;
  check: Check;
  passed: boolean;
  /** why it failed, in a line */
  reason?: string;
  seconds: number;
}

export const cellId = (client: ClientName, kind: ChannelKind, check: Check) => `cell-${client}-${kind}-${check}`;

export function promptOf(id: string, check: Check): string {
  return check === 'text'
    ? `Say hello to the gateway. (${id})`
    : `Read the file notes.txt in this directory and tell me what it says. (${id})`;
}

/** The tail of a client's output: where its error, if any, is (Claude Code's JSON says it in `result`). */
function lastLine(text: string): string {
  try {
    const { result } = JSON.parse(text) as { result?: unknown };
    if (typeof result === 'string') return result.slice(0, 200);
  } catch {
    // not JSON
  }
  const lines = text
    .trim()
    .split('\n')
    .filter((line) => line.trim() !== '');
  return (lines.at(-1) ?? '').trim().slice(0, 200);
}

export interface CellEvidence {
  id: string;
  check: Check;
  secret: string;
  run: ClientRun;
  turns: UpstreamTurn[];
  usage: UsageRecorded['body'][];
  format: ClientFormat;
  /** the gateway's endpoints of the cell's requests (`request.completed`) */
  endpoints: string[];
}

/** The endpoint a format's generating requests reach; token counts and compactions are apart. */
const formatEndpoint: Record<ClientFormat, string> = {
  anthropic: 'messages',
  'openai-responses': 'responses',
  openai: 'chat.completions',
  gemini: 'gemini.generateContent',
};
const sideEndpoints = new Set([
  'messages.count_tokens',
  'gemini.countTokens',
  'responses.input_tokens',
  'responses.compact',
]);

/** The first thing that is wrong with a cell's run, or undefined when it passed. */
export function judge({ id, check, secret, run, turns, usage, format, endpoints }: CellEvidence): string | undefined {
  if (run.timedOut) return `timed out after ${run.seconds} s; ${lastLine(run.stderr || run.stdout)}`;
  if (run.exitCode !== 0) return `exit ${run.exitCode}: ${lastLine(run.stderr || run.stdout)}`;
  if (check === 'tool') {
    const called = turns.find((turn) => turn.answered === 'tool-call');
    if (!called) {
      const offered = turns.at(-1)?.tools ?? [];
      return `the read tool was not offered to the upstream (tools: ${offered.join(', ') || 'none'})`;
    }
    if (!turns.some((turn) => turn.answered === 'final')) return 'the tool result never reached the upstream';
  }
  const expected = check === 'text' ? plainText(id) : finalText(secret);
  if (!run.stdout.includes(expected)) return `printed no "${expected}": ${lastLine(run.stdout)}`;
  const spoken = [...new Set(endpoints.filter((endpoint) => !sideEndpoints.has(endpoint)))];
  if (spoken.length !== 1 || spoken[0] !== formatEndpoint[format]) {
    return `spoke ${spoken.join(', ') || 'nothing'} to the gateway, not ${formatEndpoint[format]}`;
  }
  const generated = turns.filter((turn) => turn.answered !== 'count');
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
  const reported = {
    requests: generated.length,
    prompt: sum(generated.map((turn) => turn.usage.input)),
    completion: sum(generated.map((turn) => turn.usage.output)),
  };
  const recorded = {
    requests: usage.length,
    prompt: sum(usage.map((entry) => entry.promptTokens)),
    completion: sum(usage.map((entry) => entry.completionTokens)),
  };
  if (JSON.stringify(reported) !== JSON.stringify(recorded)) {
    return `usage recorded ${JSON.stringify(recorded)}, upstream reported ${JSON.stringify(reported)}`;
  }
  if (usage.some((entry) => entry.source !== 'upstream')) return 'usage was estimated, not the upstream count';
  return undefined;
}
