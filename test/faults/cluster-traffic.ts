/**
 * The cluster fault suite's traffic: two lanes of requests through the gateway nodes (OpenAI
 * non-streamed and Anthropic streamed, alternating), each outcome kept with what a failure was told.
 */
import type { ClusterProcess } from '../cluster/cluster-processes.ts';

export interface Sent {
  id: string;
  ok: boolean;
  status: number;
  /** What a failed request was told (its body's start, or the fetch error), for the report. */
  failure?: string;
}

export async function sendOne(target: ClusterProcess, key: string, id: string, index: number): Promise<Sent> {
  const anthropic = index % 2 === 1;
  try {
    const response = await fetch(`${target.url}${anthropic ? '/v1/messages' : '/v1/chat/completions'}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-request-id': id,
        ...(anthropic ? { 'x-api-key': key, 'anthropic-version': '2023-06-01' } : { authorization: `Bearer ${key}` }),
      },
      body: JSON.stringify(
        anthropic
          ? { model: 'claude-sonnet-4-5', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'hi' }] }
          : { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
      ),
      signal: AbortSignal.timeout(20_000),
    });
    const text = await response.text();
    const ok = response.ok && (!anthropic || text.includes('event: message_stop'));
    return ok ? { id, ok, status: response.status } : { id, ok, status: response.status, failure: text.slice(0, 400) };
  } catch (error) {
    return { id, ok: false, status: 0, failure: String(error).slice(0, 400) };
  }
}

/** Traffic through `targets` until `stop()`: one request at a time per lane. */
export function traffic(targets: () => ClusterProcess[], key: string, prefix: string, lanes = 2) {
  let stopped = false;
  const sent: Sent[] = [];
  const done = Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      for (let index = 0; !stopped; index += 1) {
        const list = targets();
        const target = list[index % list.length]!;
        sent.push(await sendOne(target, key, `${prefix}-${lane}-${index}`, index));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }),
  );
  return {
    sent,
    async stop() {
      stopped = true;
      await done;
    },
  };
}

/** The first few failures, each with what it was told: a report that says only "502" says too little. */
export function failuresOf(sent: Sent[]): string[] {
  return sent
    .filter((request) => !request.ok)
    .slice(0, 5)
    .map((request) => `${request.id} ${request.status}: ${request.failure ?? ''}`);
}

export function statusesOf(sent: Sent[]): Record<string, number> {
  const statuses: Record<string, number> = {};
  for (const request of sent) statuses[request.status] = (statuses[request.status] ?? 0) + 1;
  return statuses;
}
