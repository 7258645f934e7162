/**
 * @module gateway/providers/responses/compaction
 * Compaction on channels that cannot compact themselves. The relay, before routing, opens the
 * gateway's own compaction items the request carries (in its input and in the stored turns it
 * continues) and attaches them, with the sealer of the key's account, to the client's body; each
 * attempt then asks here for the body its channel receives:
 *
 * - every gateway compaction item becomes its summary again, as a user message where the item was,
 *   so that any channel (converted or native: OpenAI could not open the gateway's seal) continues
 *   from the summary; OpenAI's own items stay for a native channel and are dropped by the converted
 *   reader, which cannot open them;
 * - a request that compacts (a `compaction_trigger` item, or `/v1/responses/compact`) on a channel
 *   without its own compaction is answered by a summarising call: the history written out as one
 *   transcript (tool calls and results as text, so no provider's pairing rules or signatures apply)
 *   with an instruction to summarise it for the model that continues the work.
 */
import type { NeutralRequest } from '../../../contracts/neutral/request.ts';
import type { RelayInput } from '../provider.ts';
import { carryExpansion, continuedInput, inputItemsOf } from './continuation.ts';

export interface CompactionContext {
  /** seals a summary for the account that asked; absent when the gateway has no key to seal with */
  seal?: (summary: string) => string;
  /** the summaries of the gateway's compaction items this request carries, by their `encrypted_content` */
  summaries: ReadonlyMap<string, string>;
}

const contexts = new WeakMap<object, CompactionContext>();
const restored = new WeakMap<object, Record<string, unknown>>();

export function attachCompaction(body: object, context: CompactionContext): void {
  contexts.set(body, context);
}

export function compactionOf(body: object): CompactionContext | undefined {
  return contexts.get(body);
}

type Item = Record<string, unknown>;

export function hasCompactionTrigger(body: Record<string, unknown>): boolean {
  const input = body['input'];
  return Array.isArray(input) && input.some((item) => (item as Item | null)?.['type'] === 'compaction_trigger');
}

/** The `encrypted_content` of each compaction item among `items`. */
export function compactionTokens(items: readonly unknown[]): string[] {
  return items.flatMap((item) => {
    const loose = item as Item | null;
    return loose?.['type'] === 'compaction' && typeof loose['encrypted_content'] === 'string'
      ? [loose['encrypted_content']]
      : [];
  });
}

/** How a restored summary opens: the model reads it as what came before, not as a new request. */
export const SUMMARY_PREFIX =
  'The conversation before this point was compacted to save context. This is its summary, written for you to continue the work from:\n\n';

function summaryMessage(summary: string): Item {
  return { type: 'message', role: 'user', content: [{ type: 'input_text', text: SUMMARY_PREFIX + summary }] };
}

function restore(body: Record<string, unknown>, summaries: ReadonlyMap<string, string>): Record<string, unknown> {
  const input = body['input'];
  if (summaries.size === 0 || !Array.isArray(input)) return body;
  let changed = false;
  const items = (input as Item[]).map((item) => {
    const token = item?.['type'] === 'compaction' ? item['encrypted_content'] : undefined;
    const summary = typeof token === 'string' ? summaries.get(token) : undefined;
    if (summary === undefined) return item;
    changed = true;
    return summaryMessage(summary);
  });
  if (!changed) return body;
  const copy = { ...body, input: items };
  carryExpansion(body, copy);
  return copy;
}

/**
 * The input an attempt relays: the stored conversation continued for its channel (continuation.ts),
 * with the gateway's compaction items restored. The same body object for every call of an attempt:
 * the conversion is kept per body (converted-request.ts).
 */
export function preparedInput(client: RelayInput, native: boolean): RelayInput {
  const continued = continuedInput(client, native);
  const context = compactionOf(client.body);
  if (!context) return continued;
  let body = restored.get(continued.body);
  if (!body) {
    body = restore(continued.body, context.summaries);
    attachCompaction(body, context);
    restored.set(continued.body, body);
  }
  return body === continued.body ? continued : { ...continued, body };
}

const SUMMARISER =
  'You compact conversations between a user and an AI assistant, often a coding agent working with tools, ' +
  'so that the assistant can continue the work from your summary alone, without the conversation.';

const SUMMARY_REQUEST =
  'Write a handoff summary of the conversation above for the assistant that continues it. Include the ' +
  "user's goals, constraints and every instruction or preference they gave; what has been done (decisions " +
  'made, files and code changed, commands run and what they showed); the current state and what is left ' +
  'unfinished; and the next steps. Be concise and specific: keep names, paths, identifiers, numbers and ' +
  'error messages exactly as they were. Answer with the summary only.';

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return (content as Item[])
    .map((part) => {
      if (typeof part?.['text'] === 'string') return part['text'];
      if (typeof part?.['refusal'] === 'string') return part['refusal'];
      if (part?.['type'] === 'input_image') return '[image]';
      if (part?.['type'] === 'input_file')
        return `[file${typeof part['filename'] === 'string' ? ` ${part['filename']}` : ''}]`;
      return '';
    })
    .join('');
}

const speakers: Record<string, string> = {
  user: 'User',
  assistant: 'Assistant',
  system: 'System',
  developer: 'Developer',
};

/** One history item as transcript text, or '' for what the summary cannot use (signed reasoning, opaque items). */
function line(item: Item): string {
  const type = typeof item['type'] === 'string' ? item['type'] : 'message';
  switch (type) {
    case 'message': {
      const role = typeof item['role'] === 'string' ? item['role'] : 'user';
      return `${speakers[role] ?? role}: ${textOf(item['content'])}`;
    }
    case 'function_call': {
      const name = item['namespace'] ? `${item['namespace']}.${item['name']}` : item['name'];
      return `Assistant called tool ${String(name)} (call ${String(item['call_id'])}) with ${String(item['arguments'])}`;
    }
    case 'custom_tool_call': {
      const name = item['namespace'] ? `${item['namespace']}.${item['name']}` : item['name'];
      return `Assistant called tool ${String(name)} (call ${String(item['call_id'])}) with ${String(item['input'])}`;
    }
    case 'function_call_output':
    case 'custom_tool_call_output':
      return `Tool result (call ${String(item['call_id'])}): ${textOf(item['output'])}`;
    // Tool definitions, not conversation: the continuing turn offers its tools itself.
    case 'additional_tools':
    case 'reasoning':
    case 'compaction':
    case 'compaction_trigger':
    case 'item_reference':
      return '';
    default: {
      // Another tool's call or output (a custom tool, a shell call, a web search): what it did, as its fields say.
      const { id: _id, type: _type, ...fields } = item;
      return `${type}: ${JSON.stringify(fields)}`;
    }
  }
}

/** The conversation written out for the summariser, oldest first. */
export function transcriptOf(body: Record<string, unknown>): string {
  return inputItemsOf(body['input'])
    .map(line)
    .filter((text) => text !== '')
    .join('\n\n');
}

/** The neutral request of the summarising call a compaction makes on a converted channel. */
export function summarisingRequest(body: Record<string, unknown>): NeutralRequest {
  const transcript = transcriptOf(body);
  const limit = body['max_output_tokens'];
  return {
    model: typeof body['model'] === 'string' ? body['model'] : '',
    system: [SUMMARISER],
    turns: [
      {
        role: 'user',
        parts: [{ type: 'text', text: `<conversation>\n${transcript}\n</conversation>\n\n${SUMMARY_REQUEST}` }],
      },
    ],
    tools: [],
    sampling: typeof limit === 'number' && Number.isInteger(limit) && limit > 0 ? { maxOutputTokens: limit } : {},
    stream: body['stream'] === true,
  };
}

/**
 * What `/v1/responses/compact` keeps of the history beside the compaction item, as OpenAI does: the
 * user's own messages, in order (their words matter verbatim; the summary covers the rest).
 */
export function retainedUserMessages(body: Record<string, unknown>): Item[] {
  return inputItemsOf(body['input']).flatMap((item) => {
    if ((item['type'] ?? 'message') !== 'message' || item['role'] !== 'user') return [];
    // A restored summary is the gateway's message, not the user's: the new compaction item covers it.
    const content = item['content'];
    if (textOf(content).startsWith(SUMMARY_PREFIX)) return [];
    return [
      {
        type: 'message',
        role: 'user',
        content: typeof content === 'string' ? [{ type: 'input_text', text: content }] : content,
      },
    ];
  });
}
