/**
 * @module gateway/providers/responses/write-responses-stream
 * The Responses writer for streams: neutral reply parts as Responses SSE events, in the order OpenAI
 * sends them (response.created, response.in_progress; per item output_item.added, content_part.added
 * or reasoning_summary_part.added, deltas, the .done events, output_item.done; then
 * response.completed, or response.incomplete, with the usage). Unlike the other writers it keeps the
 * reply's text once, in its output items: the final event carries the whole response, as the SDK's
 * finalResponse() reads it, and the items are let go once it is written. Every event is serialised
 * as it is made, so no event takes a copy of them.
 * Function calls stay open until the finish, since OpenAI-format upstreams interleave the arguments
 * of parallel calls; a text or reasoning item is closed when another item starts. A custom tool's
 * call (custom-tools.ts) streams its text in one `custom_tool_call_input.delta` when it closes: the
 * upstream streams a JSON object holding the text, which decodes only whole.
 */
import type { FinishReason } from '../../../contracts/neutral/reply.ts';
import type { TokenCounts } from '../../../contracts/neutral/usage.ts';
import type { ResponsesRequest } from '../../../contracts/openai/responses-request.ts';
import type {
  ResponsesObject,
  ResponsesOutputItem,
  UnsequencedStreamEvent,
} from '../../../contracts/openai/responses-response.ts';
import { openAIErrorType } from '../conversion/map-error-type.ts';
import type { ReplyPart } from '../conversion/reply.ts';
import { callName, clientCall, clientTools } from './client-tools.ts';
import { customInput } from './custom-tools.ts';
import { itemId, outputText, responseFrame, responseId, responsesUsage, statusOf } from './response-frame.ts';

type Item = ResponsesOutputItem;

export class ResponsesStreamWriter {
  readonly #request: ResponsesRequest;
  readonly #createdAt: number;
  #response: ResponsesObject | null = null;
  #sequence = 0;
  readonly #output: Item[] = [];
  /** output indexes of items not yet done */
  readonly #open = new Set<number>();
  /** the message or reasoning item text and summary deltas go to */
  #current: number | null = null;
  readonly #callIndexes = new Map<number, number>();
  /** the client's tools, by the name the upstream calls them */
  readonly #tools: ReturnType<typeof clientTools>;
  /** the arguments streamed so far of each open custom tool call, by output index */
  readonly #customArguments = new Map<number, string>();
  #finishReason: FinishReason | null = null;
  #usage: TokenCounts | null = null;

  constructor(options: { request: ResponsesRequest; createdAt: number }) {
    this.#request = options.request;
    this.#createdAt = options.createdAt;
    this.#tools = clientTools(options.request);
  }

  write(part: ReplyPart): string {
    switch (part.type) {
      case 'start':
        return this.#start(part.id, part.model);
      case 'text-delta':
        return part.text === '' ? '' : this.#text(part.text);
      case 'reasoning-delta':
        return part.text === '' ? '' : this.#reasoning(part.text);
      case 'reasoning-signature':
        this.#sign(part.signature);
        return '';
      case 'tool-call-start':
        return this.#toolCallStart(part.toolIndex, part.id, part.name);
      case 'tool-call-delta':
        return this.#toolCallDelta(part.toolIndex, part.arguments);
      case 'finish':
        this.#finishReason = part.reason;
        return this.#closeAll();
      case 'usage':
        this.#usage = part.usage;
        return '';
      case 'end':
        return this.#end();
      case 'error':
        return this.#error(part.errorType, part.message);
    }
  }

  #emit(event: UnsequencedStreamEvent): string {
    const sequenced = { ...event, sequence_number: this.#sequence++ };
    return `event: ${event.type}\ndata: ${JSON.stringify(sequenced)}\n\n`;
  }

  #snapshot(): ResponsesObject {
    const response = this.#response!;
    return { ...response, output: this.#output, output_text: outputText(this.#output) };
  }

  #start(upstreamId: string, model: string): string {
    if (this.#response) return '';
    const id = responseId(upstreamId);
    this.#response = responseFrame({ id, model, createdAt: this.#createdAt, request: this.#request });
    return (
      this.#emit({ type: 'response.created', response: this.#snapshot() }) +
      this.#emit({ type: 'response.in_progress', response: this.#snapshot() })
    );
  }

  /** An upstream that starts without a start event still gets the opening events. */
  #ensureStarted(): string {
    return this.#response ? '' : this.#start('', '');
  }

  #addItem(item: Item): { frames: string; index: number } {
    const index = this.#output.length;
    this.#output.push(item);
    this.#open.add(index);
    return {
      frames: this.#emit({ type: 'response.output_item.added', output_index: index, item }),
      index,
    };
  }

  #text(delta: string): string {
    let frames = this.#ensureStarted();
    const id = this.#response!.id;
    if (this.#current === null || this.#output[this.#current]!.type !== 'message') {
      frames += this.#closeCurrent();
      const opened = this.#addItem({
        type: 'message',
        id: itemId('msg', id, this.#output.length),
        status: 'in_progress',
        role: 'assistant',
        content: [],
      });
      this.#current = opened.index;
      const item = this.#output[opened.index] as Extract<Item, { type: 'message' }>;
      item.content.push({ type: 'output_text', text: '', annotations: [] });
      frames +=
        opened.frames +
        this.#emit({
          type: 'response.content_part.added',
          item_id: item.id,
          output_index: opened.index,
          content_index: 0,
          part: { type: 'output_text', text: '', annotations: [] },
        });
    }
    const index = this.#current!;
    const item = this.#output[index] as Extract<Item, { type: 'message' }>;
    const part = item.content[0] as { text: string };
    part.text += delta;
    return (
      frames +
      this.#emit({
        type: 'response.output_text.delta',
        item_id: item.id,
        output_index: index,
        content_index: 0,
        delta,
        logprobs: [],
      })
    );
  }

  #reasoning(delta: string): string {
    let frames = this.#ensureStarted();
    const id = this.#response!.id;
    if (this.#current === null || this.#output[this.#current]!.type !== 'reasoning') {
      frames += this.#closeCurrent();
      const opened = this.#addItem({ type: 'reasoning', id: itemId('rs', id, this.#output.length), summary: [] });
      this.#current = opened.index;
      const item = this.#output[opened.index] as Extract<Item, { type: 'reasoning' }>;
      item.summary.push({ type: 'summary_text', text: '' });
      frames +=
        opened.frames +
        this.#emit({
          type: 'response.reasoning_summary_part.added',
          item_id: item.id,
          output_index: opened.index,
          summary_index: 0,
          part: { type: 'summary_text', text: '' },
        });
    }
    const index = this.#current!;
    const item = this.#output[index] as Extract<Item, { type: 'reasoning' }>;
    item.summary[0]!.text += delta;
    return (
      frames +
      this.#emit({
        type: 'response.reasoning_summary_text.delta',
        item_id: item.id,
        output_index: index,
        summary_index: 0,
        delta,
      })
    );
  }

  /** The signature belongs to the reasoning item just streamed: the item's done event and the final response carry it. */
  #sign(signature: string): void {
    const reasoning = this.#output.findLast((item) => item.type === 'reasoning');
    if (reasoning?.type === 'reasoning') reasoning.encrypted_content = (reasoning.encrypted_content ?? '') + signature;
  }

  #toolCallStart(toolIndex: number, callId: string, name: string): string {
    if (this.#callIndexes.has(toolIndex)) return '';
    let frames = this.#ensureStarted() + this.#closeCurrent();
    const tool = clientCall(name, this.#tools);
    const position = this.#output.length;
    const opened = this.#addItem(
      tool.custom
        ? {
            type: 'custom_tool_call',
            id: itemId('ctc', this.#response!.id, position),
            call_id: callId,
            ...callName(tool),
            input: '',
            status: 'in_progress',
          }
        : {
            type: 'function_call',
            id: itemId('fc', this.#response!.id, position),
            call_id: callId,
            ...callName(tool),
            arguments: '',
            status: 'in_progress',
          },
    );
    if (tool.custom) this.#customArguments.set(opened.index, '');
    this.#callIndexes.set(toolIndex, opened.index);
    frames += opened.frames;
    return frames;
  }

  #toolCallDelta(toolIndex: number, delta: string): string {
    const index = this.#callIndexes.get(toolIndex);
    if (index === undefined || delta === '' || !this.#open.has(index)) return '';
    const item = this.#output[index]!;
    if (item.type === 'custom_tool_call') {
      this.#customArguments.set(index, (this.#customArguments.get(index) ?? '') + delta);
      return '';
    }
    if (item.type !== 'function_call') return '';
    item.arguments += delta;
    return this.#emit({ type: 'response.function_call_arguments.delta', item_id: item.id, output_index: index, delta });
  }

  #closeCurrent(): string {
    if (this.#current === null) return '';
    const index = this.#current;
    this.#current = null;
    return this.#close(index);
  }

  #closeAll(): string {
    this.#current = null;
    return [...this.#open].map((index) => this.#close(index)).join('');
  }

  #close(index: number): string {
    if (!this.#open.delete(index)) return '';
    const item = this.#output[index]!;
    let frames = '';
    if (item.type === 'message') {
      const part = item.content[0] as { type: 'output_text'; text: string; annotations: unknown[] };
      const at = { item_id: item.id, output_index: index, content_index: 0 };
      frames +=
        this.#emit({ type: 'response.output_text.done', ...at, text: part.text, logprobs: [] }) +
        this.#emit({ type: 'response.content_part.done', ...at, part: { ...part } });
      item.status = 'completed';
    } else if (item.type === 'reasoning') {
      const summary = item.summary[0]!;
      const at = { item_id: item.id, output_index: index, summary_index: 0 };
      frames +=
        this.#emit({ type: 'response.reasoning_summary_text.done', ...at, text: summary.text }) +
        this.#emit({ type: 'response.reasoning_summary_part.done', ...at, part: { ...summary } });
    } else if (item.type === 'custom_tool_call') {
      item.input = customInput(this.#customArguments.get(index) ?? '');
      this.#customArguments.delete(index);
      const at = { item_id: item.id, output_index: index };
      if (item.input !== '')
        frames += this.#emit({ type: 'response.custom_tool_call_input.delta', ...at, delta: item.input });
      frames += this.#emit({ type: 'response.custom_tool_call_input.done', ...at, input: item.input });
      item.status = 'completed';
    } else {
      // A call whose upstream streamed no arguments takes none, as an empty object.
      if (item.arguments === '') item.arguments = '{}';
      frames += this.#emit({
        type: 'response.function_call_arguments.done',
        item_id: item.id,
        output_index: index,
        arguments: item.arguments,
        name: item.name,
      });
      item.status = 'completed';
    }
    return frames + this.#emit({ type: 'response.output_item.done', output_index: index, item });
  }

  #end(): string {
    let frames = this.#ensureStarted() + this.#closeAll();
    const final: ResponsesObject = {
      ...this.#snapshot(),
      ...statusOf(this.#finishReason),
      usage: this.#usage ? responsesUsage(this.#usage) : null,
    };
    frames += this.#emit({
      type: final.status === 'incomplete' ? 'response.incomplete' : 'response.completed',
      response: final,
    });
    // Written: the final event (which the keeper holds until the turn is kept) is the text's one copy.
    this.#output.length = 0;
    return frames;
  }

  /** Ends the stream with the gateway's own error (its code as given): `error`, then `response.failed`. */
  fail(code: string, message: string): string {
    return this.#failed(code, message);
  }

  #error(errorType: string, message: string): string {
    return this.#failed(openAIErrorType(errorType), message);
  }

  #failed(code: string, message: string): string {
    let frames = this.#ensureStarted();
    frames += this.#emit({ type: 'error', code, message, param: null });
    const failed: ResponsesObject = {
      ...this.#snapshot(),
      status: 'failed',
      error: { code, message },
      usage: this.#usage ? responsesUsage(this.#usage) : null,
    };
    return frames + this.#emit({ type: 'response.failed', response: failed });
  }
}
