/**
 * A captured payload read as a conversation: the request's turns (system, user, assistant, tool) and
 * the reply's, each a list of parts (text, thinking, a tool call, a tool's result). Reads the shapes of
 * every client format the gateway serves (Chat Completions, Messages, Responses, Gemini); anything it
 * does not know is shown as its JSON rather than dropped.
 */
import type { PayloadView } from '@contracts/console-api-payloads.ts';

export type PartKind = 'text' | 'thinking' | 'tool_call' | 'tool_result' | 'other';

export interface Part {
  kind: PartKind;
  text: string;
  /** a tool call's tool */
  name?: string;
}

export interface Turn {
  role: string;
  parts: Part[];
  /** from the reply rather than the request */
  reply?: boolean;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const asText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** One block of content in any of the formats. */
function partOf(block: unknown): Part[] {
  if (typeof block === 'string') return block ? [{ kind: 'text', text: block }] : [];
  if (!isObject(block)) return [];
  const type = block['type'];
  if (typeof block['text'] === 'string' && block['thought'] === true)
    return [{ kind: 'thinking', text: block['text'] }];
  if (typeof block['text'] === 'string') return [{ kind: 'text', text: block['text'] }];
  if (type === 'thinking') return [{ kind: 'thinking', text: asText(block['thinking']) }];
  if (type === 'reasoning')
    return list(block['summary'])
      .flatMap((item) => partOf(item))
      .map((part) => ({ ...part, kind: 'thinking' as const }));
  if (type === 'tool_use' || type === 'function_call') {
    return [{ kind: 'tool_call', name: String(block['name']), text: asText(block['input'] ?? block['arguments']) }];
  }
  if (type === 'tool_result') return [{ kind: 'tool_result', text: contentText(block['content']) }];
  if (type === 'function_call_output') return [{ kind: 'tool_result', text: asText(block['output']) }];
  const call = block['functionCall'];
  if (isObject(call)) return [{ kind: 'tool_call', name: String(call['name']), text: asText(call['args']) }];
  if (isObject(block['functionResponse'])) return [{ kind: 'tool_result', text: asText(block['functionResponse']) }];
  return [{ kind: 'other', text: asText(block) }];
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  return partsOf(content)
    .map((part) => part.text)
    .join('\n');
}

function partsOf(content: unknown): Part[] {
  return Array.isArray(content) ? content.flatMap(partOf) : partOf(content);
}

/** A message of any format: its role and parts, tool calls and reasoning beside the content. */
function turnOf(message: unknown): Turn | null {
  if (!isObject(message)) return null;
  if (message['type'] && message['type'] !== 'message') {
    return { role: message['type'] === 'function_call_output' ? 'tool' : 'assistant', parts: partOf(message) };
  }
  const role = String(message['role'] ?? 'user');
  const parts: Part[] = [];
  if (typeof message['reasoning_content'] === 'string')
    parts.push({ kind: 'thinking', text: message['reasoning_content'] });
  const content = partsOf(message['content'] ?? message['parts']);
  parts.push(...(role === 'tool' ? content.map((part) => ({ ...part, kind: 'tool_result' as const })) : content));
  for (const call of list(message['tool_calls'])) {
    const fn = isObject(call) && isObject(call['function']) ? call['function'] : {};
    parts.push({ kind: 'tool_call', name: String(fn['name']), text: asText(fn['arguments']) });
  }
  return { role, parts };
}

function requestTurns(body: unknown): Turn[] {
  if (!isObject(body)) return [];
  const turns: Turn[] = [];
  const system = body['system'] ?? body['instructions'] ?? body['systemInstruction'];
  if (system !== undefined) turns.push({ role: 'system', parts: partsOf(isObject(system) ? system['parts'] : system) });
  const input = body['input'];
  const messages =
    body['messages'] ?? body['contents'] ?? (typeof input === 'string' ? [{ role: 'user', content: input }] : input);
  for (const message of list(messages)) {
    const turn = turnOf(message);
    if (turn) turns.push(turn);
  }
  return turns;
}

function replyTurns(body: unknown): Turn[] {
  if (!isObject(body)) return [];
  const chosen = list(body['choices'])[0];
  const candidate = list(body['candidates'])[0];
  const messages = isObject(chosen)
    ? [chosen['message']]
    : isObject(candidate)
      ? [{ role: 'assistant', parts: (candidate['content'] as Json | undefined)?.['parts'] }]
      : body['type'] === 'message'
        ? [body]
        : list(body['output']);
  return messages.flatMap((message) => {
    const turn = turnOf(message);
    return turn ? [{ ...turn, role: turn.role === 'model' ? 'assistant' : turn.role, reply: true }] : [];
  });
}

/** The conversation of a payload; a side kept only as text (cut at the cap, or not JSON) has no turns. */
export function conversationOf(payload: PayloadView): Turn[] {
  return [...requestTurns(payload.request.json), ...replyTurns(payload.reply.json)];
}
