/**
 * @module gateway/capture/stream-reassembly
 * A streamed reply, as the client received it (SSE text in the client's format), reassembled into the
 * one reply the same request unstreamed would have answered: Chat Completions chunks into a
 * `chat.completion`, Messages events into a `message`, a Responses stream into its final `response`.
 * Kept in the client's format because that is what the owner sent and reads back beside the request;
 * a stream of another shape (Gemini's chunks) is kept as its list of events.
 */

interface SseEvent {
  event: string | null;
  data: unknown;
}

/** The SSE text's events, their `data` parsed as JSON where it parses (`[DONE]` is dropped). */
export function sseEvents(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    let name: string | null = null;
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith('event:')) name = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
    }
    if (data.length === 0 || data[0] === '[DONE]') continue;
    const joined = data.join('\n');
    try {
      events.push({ event: name, data: JSON.parse(joined) });
    } catch {
      events.push({ event: name, data: joined });
    }
  }
  return events;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null;

export function reassembleStream(text: string): unknown {
  const events = sseEvents(text);
  const first = events.find((event) => isObject(event.data))?.data as Json | undefined;
  if (first?.['object'] === 'chat.completion.chunk') return chatCompletion(events);
  if (first?.['type'] === 'message_start') return anthropicMessage(events);
  const final = events.findLast((event) => isObject(event.data) && isObject(event.data['response']));
  if (final && String((final.data as Json)['type'] ?? '').startsWith('response.'))
    return (final.data as Json)['response'];
  return { events: events.map((event) => event.data) };
}

interface ChoiceState {
  message: Json & { content: string; tool_calls?: Json[] };
  finish_reason: unknown;
  reasoning: string;
}

function chatCompletion(events: SseEvent[]): Json {
  const choices = new Map<number, ChoiceState>();
  let head: Json = {};
  let usage: unknown = null;
  for (const { data } of events) {
    if (!isObject(data)) continue;
    head = { id: data['id'], model: data['model'], created: data['created'] };
    if (data['usage']) usage = data['usage'];
    for (const choice of (data['choices'] as Json[] | undefined) ?? []) {
      const index = Number(choice['index'] ?? 0);
      const state = choices.get(index) ?? {
        message: { role: 'assistant', content: '' },
        finish_reason: null,
        reasoning: '',
      };
      choices.set(index, state);
      const delta = (choice['delta'] as Json | undefined) ?? {};
      if (typeof delta['content'] === 'string') state.message.content += delta['content'];
      if (typeof delta['reasoning_content'] === 'string') state.reasoning += delta['reasoning_content'];
      for (const call of (delta['tool_calls'] as Json[] | undefined) ?? []) mergeToolCall(state.message, call);
      if (choice['finish_reason'] != null) state.finish_reason = choice['finish_reason'];
    }
  }
  return {
    ...head,
    object: 'chat.completion',
    choices: [...choices].map(([index, state]) => ({
      index,
      message: state.reasoning ? { ...state.message, reasoning_content: state.reasoning } : state.message,
      finish_reason: state.finish_reason,
    })),
    ...(usage ? { usage } : {}),
  };
}

function mergeToolCall(message: ChoiceState['message'], delta: Json): void {
  message.tool_calls ??= [];
  const index = Number(delta['index'] ?? message.tool_calls.length);
  const fn = (delta['function'] as Json | undefined) ?? {};
  const call = message.tool_calls[index] ?? {
    id: delta['id'],
    type: 'function',
    function: { name: '', arguments: '' },
  };
  message.tool_calls[index] = call;
  const target = call['function'] as { name: string; arguments: string };
  if (typeof fn['name'] === 'string') target.name += fn['name'];
  if (typeof fn['arguments'] === 'string') target.arguments += fn['arguments'];
}

function anthropicMessage(events: SseEvent[]): Json {
  let message: Json = {};
  const blocks: Json[] = [];
  for (const { data } of events) {
    if (!isObject(data)) continue;
    const type = data['type'];
    if (type === 'message_start') message = { ...(data['message'] as Json) };
    else if (type === 'content_block_start') blocks[Number(data['index'])] = { ...(data['content_block'] as Json) };
    else if (type === 'content_block_delta') applyBlockDelta(blocks[Number(data['index'])], data['delta'] as Json);
    else if (type === 'message_delta') {
      Object.assign(message, data['delta'] as Json);
      message['usage'] = { ...(message['usage'] as Json | undefined), ...(data['usage'] as Json | undefined) };
    }
  }
  return { ...message, content: blocks.filter(Boolean).map(withParsedInput) };
}

function applyBlockDelta(block: Json | undefined, delta: Json | undefined): void {
  if (!block || !delta) return;
  const append = (field: string, value: unknown) => {
    if (typeof value === 'string') block[field] = String(block[field] ?? '') + value;
  };
  if (delta['type'] === 'text_delta') append('text', delta['text']);
  else if (delta['type'] === 'thinking_delta') append('thinking', delta['thinking']);
  else if (delta['type'] === 'signature_delta') append('signature', delta['signature']);
  else if (delta['type'] === 'input_json_delta') append('partial_json', delta['partial_json']);
}

/** A tool_use block's input, streamed as JSON text in pieces, as the object it spells. */
function withParsedInput(block: Json): Json {
  if (typeof block['partial_json'] !== 'string') return block;
  const { partial_json: text, ...rest } = block;
  try {
    return { ...rest, input: JSON.parse((text as string) || '{}') };
  } catch {
    return { ...rest, input: text };
  }
}
