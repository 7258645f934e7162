/**
 * @module gateway/providers/openai/responses-native
 * `/v1/responses` relayed as is to an OpenAI-kind channel that serves the Responses API itself
 * (`responses_api: true`): the body goes to `<base_url>/responses` with only the model mapped, and
 * the reply's bytes go back untouched. On the way the gateway reads the usage (of the whole reply, or
 * of the stream's response.completed / incomplete / failed event), the model and any error event,
 * which it scrubs of the channel's keys before forwarding. A stream the gateway itself must end (over
 * its size limit) ends as OpenAI ends a failed one: `error`, then `response.failed` naming the
 * response that `response.created` opened.
 */
import type { CompletionUsage } from '../../../contracts/openai/chat-response.ts';
import { channelSecrets, type SecretHolder, scrubJsonText, scrubSecrets } from '../../security/scrub-secrets.ts';
import { CompletionTokenCounter } from '../conversion/completion-token-counter.ts';
import type { BuiltRequest, Provider, RelayInput, SseEvent, StreamOutcome } from '../provider.ts';
import type { FailingStreamRelay, StreamFailure } from '../provider-extensions.ts';
import { responsesReplyText } from './responses-reply-text.ts';
import { tokenCountsFromOpenAI } from './usage.ts';

type LooseResponsesUsage = {
  input_tokens?: unknown;
  output_tokens?: unknown;
  input_tokens_details?: { cached_tokens?: unknown } | null;
  output_tokens_details?: { reasoning_tokens?: unknown } | null;
};

/** Responses usage in Chat Completions names, so one checked reader (usage.ts) believes or refuses it. */
function asCompletionUsage(usage: unknown): CompletionUsage | null | undefined {
  if (usage === null || usage === undefined || typeof usage !== 'object' || Array.isArray(usage)) {
    return usage as null | undefined;
  }
  const loose = usage as LooseResponsesUsage;
  return {
    prompt_tokens: loose.input_tokens,
    completion_tokens: loose.output_tokens,
    prompt_tokens_details: { cached_tokens: loose.input_tokens_details?.cached_tokens ?? 0 },
    completion_tokens_details: { reasoning_tokens: loose.output_tokens_details?.reasoning_tokens ?? 0 },
  } as CompletionUsage;
}

export function buildResponsesRequest({ route, body, stream, clientQuery }: RelayInput): BuiltRequest {
  return {
    upstream: {
      url: `${route.channel.baseUrl}/responses${clientQuery ?? ''}`,
      headers: {
        authorization: `Bearer ${route.channel.apiKey}`,
        'content-type': 'application/json',
        accept: stream ? 'text/event-stream' : 'application/json',
      },
      body: JSON.stringify({ ...body, model: route.upstreamModel }),
    },
    hideUsageChunk: false,
  };
}

type LooseEvent = {
  type?: unknown;
  sequence_number?: unknown;
  delta?: unknown;
  message?: unknown;
  code?: unknown;
  response?: {
    model?: unknown;
    usage?: unknown;
    error?: { code?: unknown; message?: unknown } | null;
  } & Record<string, unknown>;
};

/** The event types whose payload the gateway reads; every other event is forwarded without parsing. */
const readEvents = new Set([
  'response.created',
  'response.completed',
  'response.incomplete',
  'response.failed',
  'response.output_text.delta',
  'response.function_call_arguments.delta',
  'response.reasoning_summary_text.delta',
  'error',
]);

export class ResponsesStreamRelay implements FailingStreamRelay {
  readonly #channel: SecretHolder | undefined;
  #outcome: StreamOutcome = { usage: null, model: null, error: null, completionText: '' };
  /** the response as `response.created` opened it (no output yet), for a `response.failed` of the gateway's */
  #opened: Record<string, unknown> | null = null;
  #sequence = 0;
  /** the generated text, counted as it passes rather than kept */
  readonly #completion = new CompletionTokenCounter();
  sawContent = false;

  constructor(channel?: SecretHolder) {
    this.#channel = channel;
  }

  onEvent({ event, data }: SseEvent): string {
    const head = event ? `event: ${event}\n` : '';
    let parsed: LooseEvent | null = null;
    if (event === undefined || readEvents.has(event)) {
      try {
        parsed = JSON.parse(data);
      } catch {
        parsed = null;
      }
    }
    const type = typeof parsed?.type === 'string' ? parsed.type : event;
    if (parsed && Number.isSafeInteger(parsed.sequence_number)) this.#sequence = parsed.sequence_number as number;
    if (type === 'response.created' && parsed?.response && typeof parsed.response === 'object') {
      this.#opened = parsed.response;
    }
    if (parsed && type === 'error') return `${head}data: ${this.#error(parsed, data)}\n\n`;
    if (parsed && typeof parsed.delta === 'string') {
      this.sawContent = true;
      this.#completion.add(parsed.delta);
    }
    const response = parsed?.response;
    if (response && typeof response === 'object') {
      if (typeof response.model === 'string') this.#outcome.model = response.model;
      const usage = tokenCountsFromOpenAI(asCompletionUsage(response.usage), this.#outcome);
      if (usage) this.#outcome.usage = usage;
      if (type === 'response.failed' && response.error) return `${head}data: ${this.#error(response.error, data)}\n\n`;
    }
    return `${head}data: ${data}\n\n`;
  }

  outcome(): StreamOutcome {
    return { ...this.#outcome, completionTokens: this.#completion.tokens };
  }

  fail({ code, message }: StreamFailure): string {
    const error = { type: 'error', code, message, param: null, sequence_number: ++this.#sequence };
    const response = { ...this.#opened, status: 'failed', error: { code, message } };
    const failed = { type: 'response.failed', response, sequence_number: ++this.#sequence };
    this.#outcome.error = { type: code, message };
    // The opened response is the upstream's: the channel's keys never reach the client from it.
    const frames = `event: error\ndata: ${JSON.stringify(error)}\n\nevent: response.failed\ndata: ${JSON.stringify(failed)}\n\n`;
    return scrubSecrets(frames, channelSecrets(this.#channel));
  }

  #error(error: { code?: unknown; message?: unknown }, data: string): string {
    const secrets = channelSecrets(this.#channel);
    this.#outcome.error = {
      type: typeof error.code === 'string' ? error.code : 'upstream_error',
      message: typeof error.message === 'string' ? scrubSecrets(error.message, secrets) : 'Upstream error',
    };
    return scrubJsonText(data, secrets);
  }
}

export const openAIResponsesNative: Provider = {
  buildRequest: buildResponsesRequest,
  readResponse(body) {
    const reply = (body ?? {}) as { model?: unknown; usage?: unknown; output_text?: unknown; output?: unknown };
    const reading: StreamOutcome = { usage: null, model: null, error: null, completionText: '' };
    reading.model = typeof reply.model === 'string' ? reply.model : null;
    reading.completionText = responsesReplyText(reply.output);
    reading.usage = tokenCountsFromOpenAI(asCompletionUsage(reply.usage), reading);
    return {
      usage: reading.usage,
      model: reading.model,
      completionText: reading.completionText,
      usageRefused: reading.usageRefused ?? null,
    };
  },
  createStreamRelay: ({ input }) => new ResponsesStreamRelay(input.route.channel),
};
