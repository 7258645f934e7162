/**
 * One answer (a text, or a call of one tool) written the way each provider writes it: a JSON body, or
 * its stream (SSE frames; AWS's binary event stream for Bedrock), with the usage the answer reports.
 */
import { encodeEntry, type StreamEntry } from '../../fake-upstream/bedrock-fixtures.ts';
import type { UpstreamKind } from './read-request.ts';

export interface Answer {
  model: string;
  text?: string;
  /** `input` is a string for a Responses custom tool, an object otherwise */
  toolCall?: { id: string; name: string; input: Record<string, unknown> | string };
  usage: { input: number; output: number };
}

export interface WrittenReply {
  contentType: string;
  /** a JSON body, or the stream's frames in order */
  body?: string;
  frames?: Array<string | Buffer>;
}

const sse = (payload: unknown, event?: string) =>
  `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(payload)}\n\n`;
const json = (body: unknown): WrittenReply => ({ contentType: 'application/json', body: JSON.stringify(body) });
const stream = (frames: Array<string | Buffer>): WrittenReply => ({ contentType: 'text/event-stream', frames });
const argumentsOf = (answer: Answer) =>
  typeof answer.toolCall!.input === 'string' ? answer.toolCall!.input : JSON.stringify(answer.toolCall!.input);

export function writeAnswer(kind: UpstreamKind, streamed: boolean, answer: Answer, includeUsage = true): WrittenReply {
  switch (kind) {
    case 'openai':
    case 'azure':
      return streamed ? stream(chatFrames(answer, includeUsage)) : json(chatBody(answer));
    case 'openai-responses':
      return streamed ? stream(responsesFrames(answer)) : json(responsesBody(answer, 'completed'));
    case 'anthropic':
      return streamed ? stream(anthropicFrames(answer)) : json(anthropicBody(answer));
    case 'gemini':
      // Google separates its events with CRLF pairs.
      return streamed ? stream([`data: ${JSON.stringify(geminiBody(answer))}\r\n\r\n`]) : json(geminiBody(answer));
    case 'bedrock':
      return streamed
        ? { contentType: 'application/vnd.amazon.eventstream', frames: bedrockEvents(answer).map(encodeEntry) }
        : json(bedrockBody(answer));
  }
}

function chatBody(answer: Answer) {
  const call = answer.toolCall;
  return {
    id: `chatcmpl-${answer.usage.input}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: answer.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: answer.text ?? null,
          ...(call && {
            tool_calls: [
              { id: call.id, type: 'function', function: { name: call.name, arguments: argumentsOf(answer) } },
            ],
          }),
        },
        finish_reason: call ? 'tool_calls' : 'stop',
      },
    ],
    usage: chatUsage(answer),
  };
}

const chatUsage = (answer: Answer) => ({
  prompt_tokens: answer.usage.input,
  completion_tokens: answer.usage.output,
  total_tokens: answer.usage.input + answer.usage.output,
});

function chatFrames(answer: Answer, includeUsage: boolean): string[] {
  const head = {
    id: `chatcmpl-${answer.usage.input}`,
    object: 'chat.completion.chunk',
    created: 1,
    model: answer.model,
  };
  const chunk = (delta: unknown, finish: string | null = null) =>
    sse({ ...head, choices: [{ index: 0, delta, finish_reason: finish }] });
  const call = answer.toolCall;
  const frames = [chunk({ role: 'assistant', content: answer.text ?? null })];
  if (call) {
    frames.push(
      chunk({
        tool_calls: [{ index: 0, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: argumentsOf(answer) } }] }),
    );
  }
  frames.push(chunk({}, call ? 'tool_calls' : 'stop'));
  if (includeUsage) frames.push(sse({ ...head, choices: [], usage: chatUsage(answer) }));
  frames.push('data: [DONE]\n\n');
  return frames;
}

function responsesItem(answer: Answer) {
  const call = answer.toolCall;
  if (!call) {
    return {
      id: `msg_${answer.usage.input}`,
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: answer.text, annotations: [] }],
    };
  }
  return typeof call.input === 'string'
    ? {
        id: `ctc_${call.id}`,
        type: 'custom_tool_call',
        status: 'completed',
        call_id: call.id,
        name: call.name,
        input: call.input,
      }
    : {
        id: `fc_${call.id}`,
        type: 'function_call',
        status: 'completed',
        call_id: call.id,
        name: call.name,
        arguments: argumentsOf(answer),
      };
}

function responsesBody(answer: Answer, status: string) {
  return {
    id: `resp_${answer.usage.input}`,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status,
    model: answer.model,
    output: status === 'completed' ? [responsesItem(answer)] : [],
    usage:
      status === 'completed'
        ? {
            input_tokens: answer.usage.input,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: answer.usage.output,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: answer.usage.input + answer.usage.output,
          }
        : null,
  };
}

function responsesFrames(answer: Answer): string[] {
  let sequence = 0;
  const event = (type: string, fields: Record<string, unknown>) =>
    sse({ type, ...fields, sequence_number: sequence++ }, type);
  const item = responsesItem(answer);
  return [
    event('response.created', { response: responsesBody(answer, 'in_progress') }),
    event('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress' } }),
    event('response.output_item.done', { output_index: 0, item }),
    event('response.completed', { response: responsesBody(answer, 'completed') }),
  ];
}

function anthropicContent(answer: Answer) {
  const call = answer.toolCall;
  return [
    ...(answer.text ? [{ type: 'text', text: answer.text }] : []),
    ...(call ? [{ type: 'tool_use', id: call.id, name: call.name, input: call.input }] : []),
  ];
}

function anthropicBody(answer: Answer) {
  return {
    id: `msg_${answer.usage.input}`,
    type: 'message',
    role: 'assistant',
    model: answer.model,
    content: anthropicContent(answer),
    stop_reason: answer.toolCall ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: answer.usage.input, output_tokens: answer.usage.output },
  };
}

function anthropicFrames(answer: Answer): string[] {
  const event = (payload: { type: string }) => sse(payload, payload.type);
  const message = { ...anthropicBody(answer), content: [], stop_reason: null };
  const frames = [
    event({
      type: 'message_start',
      message: { ...message, usage: { input_tokens: answer.usage.input, output_tokens: 1 } },
    } as any),
  ];
  for (const [index, block] of anthropicContent(answer).entries()) {
    const start = block.type === 'text' ? { type: 'text', text: '' } : { ...block, input: {} };
    const delta =
      block.type === 'text'
        ? { type: 'text_delta', text: (block as { text: string }).text }
        : { type: 'input_json_delta', partial_json: JSON.stringify((block as { input: unknown }).input) };
    frames.push(
      event({ type: 'content_block_start', index, content_block: start } as any),
      event({ type: 'content_block_delta', index, delta } as any),
      event({ type: 'content_block_stop', index } as any),
    );
  }
  frames.push(
    event({
      type: 'message_delta',
      delta: { stop_reason: answer.toolCall ? 'tool_use' : 'end_turn', stop_sequence: null },
      usage: { output_tokens: answer.usage.output },
    } as any),
    event({ type: 'message_stop' }),
  );
  return frames;
}

function geminiBody(answer: Answer) {
  const call = answer.toolCall;
  return {
    candidates: [
      {
        content: {
          role: 'model',
          parts: [
            ...(answer.text ? [{ text: answer.text }] : []),
            ...(call ? [{ functionCall: { name: call.name, args: call.input } }] : []),
          ],
        },
        finishReason: 'STOP',
        index: 0,
      },
    ],
    usageMetadata: {
      promptTokenCount: answer.usage.input,
      candidatesTokenCount: answer.usage.output,
      totalTokenCount: answer.usage.input + answer.usage.output,
    },
    modelVersion: answer.model,
    responseId: `gemini-${answer.usage.input}`,
  };
}

function bedrockContent(answer: Answer) {
  const call = answer.toolCall;
  return [
    ...(answer.text ? [{ text: answer.text }] : []),
    ...(call ? [{ toolUse: { toolUseId: call.id, name: call.name, input: call.input } }] : []),
  ];
}

function bedrockBody(answer: Answer) {
  return {
    output: { message: { role: 'assistant', content: bedrockContent(answer) } },
    stopReason: answer.toolCall ? 'tool_use' : 'end_turn',
    usage: {
      inputTokens: answer.usage.input,
      outputTokens: answer.usage.output,
      totalTokens: answer.usage.input + answer.usage.output,
    },
    metrics: { latencyMs: 100 },
  };
}

function bedrockEvents(answer: Answer): StreamEntry[] {
  const events: StreamEntry[] = [{ event: 'messageStart', payload: { role: 'assistant' } }];
  for (const [index, block] of bedrockContent(answer).entries()) {
    if ('text' in block) {
      events.push({ event: 'contentBlockDelta', payload: { contentBlockIndex: index, delta: { text: block.text } } });
    } else {
      const { toolUseId, name, input } = block.toolUse;
      events.push(
        { event: 'contentBlockStart', payload: { contentBlockIndex: index, start: { toolUse: { toolUseId, name } } } },
        {
          event: 'contentBlockDelta',
          payload: { contentBlockIndex: index, delta: { toolUse: { input: JSON.stringify(input) } } },
        },
      );
    }
    events.push({ event: 'contentBlockStop', payload: { contentBlockIndex: index } });
  }
  const { usage, metrics, stopReason } = bedrockBody(answer);
  events.push({ event: 'messageStop', payload: { stopReason } }, { event: 'metadata', payload: { usage, metrics } });
  return events;
}
