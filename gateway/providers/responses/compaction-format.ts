/**
 * @module gateway/providers/responses/compaction-format
 * The gateway's own compaction as two ingress formats of the converting adapter (converting-provider.ts):
 * the summarising call (compaction.ts) goes to the channel's model through the neutral core like any
 * converted request, with its usage, retries and streaming, and its reply is written as a compaction:
 *
 * - a `compaction_trigger` request is answered as a Responses reply whose output is exactly one
 *   `compaction` item, whole or streamed (`response.created`, `response.in_progress`,
 *   `response.compaction.compacting` while the summary is written, then the item's
 *   `output_item.added` and `.done`, then `response.completed` carrying it);
 * - `/v1/responses/compact` is answered as OpenAI answers it: `response.compaction` with the user's
 *   messages, then the compaction item.
 *
 * The summary itself never reaches the client: the item's `encrypted_content` is the summary sealed
 * by the relay's sealer (gateway/security/compaction-seal.ts), opened again when the item comes back.
 */
import { randomBytes } from 'node:crypto';
import type { TokenCounts } from '../../../contracts/neutral/usage.ts';
import type { CompactionItem } from '../../../contracts/openai/responses-compaction.ts';
import type { ResponsesRequest } from '../../../contracts/openai/responses-request.ts';
import { GatewayError } from '../../errors.ts';
import { openAIErrorType } from '../conversion/map-error-type.ts';
import type { Reply, ReplyPart } from '../conversion/reply.ts';
import type { IngressFormat } from '../converting-provider.ts';
import { compactionOf, compactionTokens, retainedUserMessages, summarisingRequest } from './compaction.ts';
import { responseFrame, responseId, responsesUsage } from './response-frame.ts';

const nowSeconds = () => Math.floor(Date.now() / 1000);

function compactionItem(body: Record<string, unknown>, summary: string): CompactionItem {
  const seal = compactionOf(body)?.seal;
  if (!seal) throw new GatewayError('internal', 'The gateway has no key to seal a compaction with.');
  return { type: 'compaction', id: `cmp_${randomBytes(12).toString('hex')}`, encrypted_content: seal(summary) };
}

const emptySummary = () =>
  new GatewayError('upstream', 'The model answered the compaction without a summary. Try again.', {
    code: 'empty_compaction',
  });

function summaryOf(reply: Reply): string {
  return reply.blocks.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

function read(body: Record<string, unknown>, target: string) {
  // What is left of compaction items here is another provider's (the gateway's own were restored).
  const foreign = Array.isArray(body['input']) && compactionTokens(body['input']).length > 0;
  return {
    request: summarisingRequest(body),
    warnings: foreign ? [`compaction items of another provider dropped: ${target} cannot open them`] : [],
  };
}

/** The Responses reply to a `compaction_trigger`, with its one item. */
function triggerReply(body: Record<string, unknown>, id: string, model: string, createdAt: number) {
  return responseFrame({ id, model, createdAt, request: body as ResponsesRequest });
}

export const compactionTriggerFormat: IngressFormat = {
  read,
  passHeaders: false,
  writeReply(reply, body) {
    const summary = summaryOf(reply);
    if (summary.trim() === '') throw emptySummary();
    const item = compactionItem(body, summary);
    return {
      ...triggerReply(body, responseId(reply.id), reply.model, nowSeconds()),
      status: 'completed',
      output: [item],
      output_text: '',
      usage: responsesUsage(reply.usage),
    };
  },
  createStreamWriter: ({ body }) => new CompactionStreamWriter(body, nowSeconds()),
};

export const compactEndpointFormat: IngressFormat = {
  read,
  passHeaders: false,
  writeReply(reply, body) {
    const summary = summaryOf(reply);
    if (summary.trim() === '') throw emptySummary();
    return {
      id: responseId(reply.id),
      object: 'response.compaction',
      created_at: nowSeconds(),
      output: [...retainedUserMessages(body), compactionItem(body, summary)],
      usage: responsesUsage(reply.usage),
    };
  },
  createStreamWriter() {
    // The endpoint's contract refuses `stream: true` before any upstream call.
    throw new GatewayError('invalid_request', 'A compaction is answered as one JSON object, never streamed.', {
      param: 'stream',
    });
  },
};

/** At most one `response.compaction.compacting` a second: enough to show the stream alive. */
const COMPACTING_EVERY_MS = 1000;

/** The stream of a `compaction_trigger` answered by the gateway's summary: see the module comment. */
export class CompactionStreamWriter {
  readonly #body: Record<string, unknown>;
  readonly #createdAt: number;
  readonly #itemId = `cmp_${randomBytes(12).toString('hex')}`;
  #response: Record<string, unknown> | null = null;
  #sequence = 0;
  #summary = '';
  #usage: TokenCounts | null = null;
  #lastCompacting = 0;

  constructor(body: Record<string, unknown>, createdAt: number) {
    this.#body = body;
    this.#createdAt = createdAt;
  }

  write(part: ReplyPart): string {
    switch (part.type) {
      case 'start':
        return this.#start(part.id, part.model);
      case 'text-delta':
        this.#summary += part.text;
        return this.#compacting();
      case 'usage':
        this.#usage = part.usage;
        return '';
      case 'end':
        return this.#end();
      case 'error':
        return this.fail(openAIErrorType(part.errorType), part.message);
      default:
        // Reasoning, a finish reason, tool calls (none are offered): nothing the client sees.
        return '';
    }
  }

  fail(code: string, message: string): string {
    let frames = this.#ensureStarted();
    frames += this.#emit({ type: 'error', code, message, param: null });
    const failed = { ...this.#response, status: 'failed', error: { code, message }, usage: this.#usageObject() };
    return frames + this.#emit({ type: 'response.failed', response: failed });
  }

  /**
   * One event of the stream: the usual Responses events (responses-response.ts) around a compaction
   * item, whose shape is written down with the compaction events (responses-compaction.ts).
   */
  #emit(event: { type: string } & Record<string, unknown>): string {
    const sequenced = { ...event, sequence_number: this.#sequence++ };
    return `event: ${event.type}\ndata: ${JSON.stringify(sequenced)}\n\n`;
  }

  #usageObject() {
    return this.#usage ? responsesUsage(this.#usage) : null;
  }

  #start(upstreamId: string, model: string): string {
    if (this.#response) return '';
    this.#response = triggerReply(this.#body, responseId(upstreamId), model, this.#createdAt);
    return (
      this.#emit({ type: 'response.created', response: this.#response }) +
      this.#emit({ type: 'response.in_progress', response: this.#response })
    );
  }

  #ensureStarted(): string {
    return this.#response ? '' : this.#start('', '');
  }

  #compacting(): string {
    const now = Date.now();
    if (now - this.#lastCompacting < COMPACTING_EVERY_MS) return '';
    this.#lastCompacting = now;
    const frames = this.#ensureStarted();
    return frames + this.#emit({ type: 'response.compaction.compacting', item_id: this.#itemId, output_index: 0 });
  }

  #end(): string {
    let frames = this.#ensureStarted();
    if (this.#summary.trim() === '') {
      const error = emptySummary();
      return frames + this.fail(error.code ?? 'upstream_error', error.message);
    }
    const item = { ...compactionItem(this.#body, this.#summary), id: this.#itemId };
    this.#summary = '';
    frames +=
      this.#emit({ type: 'response.output_item.added', output_index: 0, item }) +
      this.#emit({ type: 'response.output_item.done', output_index: 0, item });
    const completed = { ...this.#response, status: 'completed', output: [item], usage: this.#usageObject() };
    return frames + this.#emit({ type: 'response.completed', response: completed });
  }
}
