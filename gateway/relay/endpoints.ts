/**
 * @module gateway/relay/endpoints
 * The relay endpoints as data: how each reads its key, what of the body it checks, which
 * channel kinds can serve it, and how it renders errors, before and after the first byte.
 */
import type { z } from 'zod';
import { messagesEnvelopeSchema } from '../../contracts/anthropic/messages-request.ts';
import type { ChannelType, Endpoint } from '../../contracts/events/index.ts';
import { chatCompletionEnvelopeSchema } from '../../contracts/openai/chat-request.ts';
import { responsesEnvelopeSchema } from '../../contracts/openai/responses-request.ts';
import type { TokenDocument } from '../../projector/read-models/tokens/evolve.ts';
import { type ResolvedModel, resolveThinkingSuffix } from '../providers/conversion/thinking.ts';
import { providersFor } from '../providers/index.ts';
import type { Provider, RelayInput, TokenCounts } from '../providers/provider.ts';
import { bearerKey } from './authenticate.ts';
import type { ChannelRouter, Route } from './channel-router.ts';
import type { GatewayError } from './errors.ts';
import { chatCompletionCertainlyValid, messagesCertainlyValid, responsesCertainlyValid } from './quick-check.ts';
import type { AttemptTiming, RelayCall } from './relay-call.ts';
import type { RelayDependencies } from './relay-handler.ts';
import { anthropicErrorBody, openAIErrorBody } from './render-error.ts';
import { beforeResponsesAttempt, continueStoredConversation } from './response-continuation.ts';
import { type ReplyKeeper, responsesKeeper } from './response-keeper.ts';

type Headers = Record<string, string | string[] | undefined>;

export interface EndpointSpec {
  name: Endpoint;
  /**
   * What the gateway itself reads of the body (model, stream, what limits and usage count), checked
   * before routing. Not the format's whole contract: a channel of the client's own format judges the
   * rest, and a converted channel's reader checks the contract it reads (read-request.ts).
   */
  schema: z.ZodType<Record<string, unknown>>;
  /** `schema` checked by hand in place (quick-check.ts); when it says no, `schema` decides and words the error. */
  certainlyValid(body: Record<string, unknown>): boolean;
  /** the client's key, from its headers or, for formats that allow it, the URL's query (`?key=`) */
  keyOf(headers: Headers, url?: string): string | null;
  keyHint: string;
  /**
   * The model and streaming, for a format whose URL names them (Gemini's `models/{model}:method`)
   * rather than its body's `model` and `stream`; throws the refusal of a URL it cannot serve.
   */
  target?(url: string): { model: string; stream: boolean };
  /** The completion tokens a body allows over all its replies (default: quota.ts's `completionAllowance`). */
  completionAllowance?(body: Record<string, unknown>): number;
  /** Channel kinds that can serve this endpoint, and the provider adapter of each. */
  providers: Partial<Record<ChannelType, Provider>>;
  errorBody(error: GatewayError, requestId: string): unknown;
  /** An error after the 200 was sent, as an in-stream frame of this format. */
  streamErrorFrame(error: GatewayError, requestId: string): string;
  /**
   * The model to route by and the body to relay, when the endpoint reads more than the model id
   * (the `-thinking` suffix); `serves` says whether some channel of this endpoint serves a model id.
   */
  resolveModel?(body: Record<string, unknown>, serves: (model: string) => boolean): ResolvedModel;
  /** The usage to record when the upstream reports none (default: the chat estimate, estimate-usage.ts). */
  estimateUsage?(body: Record<string, unknown>, completionText: string): TokenCounts;
  /** The refusal for a model no channel of this endpoint serves (default: 404 model_not_found). */
  unservedModel?(model: string, router: ChannelRouter): GatewayError;
  /** Generates nothing (token counting): no TPM estimate and no quota hold, only the key checks and RPM. */
  unbilled?: boolean;
  /** One attempt on one route, for an endpoint that does not relay through `providers` (default: the relay's). */
  relayOnce?(call: RelayCall, resolved: ResolvedModel, route: Route, attempt: AttemptTiming): Promise<void>;
  /**
   * Work before routing that needs the key and may wait (the stored conversation a request continues);
   * answers the prompt tokens it adds to the client's body of `bodyBytes`, which the request's holds count.
   */
  prepare?(
    body: Record<string, unknown>,
    bodyBytes: number,
    token: TokenDocument,
    dependencies: RelayDependencies,
  ): Promise<number>;
  /**
   * Before an attempt's request is built, work it may wait for on its route (the earlier turns of a
   * continued conversation, read only for a channel that expands them); null when there is none.
   */
  beforeAttempt?(input: RelayInput): Promise<void> | null;
  /** Keeps what the client is answered before its reply ends (stored Responses). */
  keeper?: ReplyKeeper;
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export const chatCompletionsEndpoint: EndpointSpec = {
  name: 'chat.completions',
  schema: chatCompletionEnvelopeSchema,
  certainlyValid: chatCompletionCertainlyValid,
  keyOf: (headers) => bearerKey(single(headers['authorization'])),
  keyHint: '`Authorization: Bearer sk-...`',
  providers: providersFor('chat.completions'),
  errorBody: (error) => openAIErrorBody(error),
  streamErrorFrame: (error) => `data: ${JSON.stringify(openAIErrorBody(error))}\n\n`,
};

export const messagesEndpoint: EndpointSpec = {
  name: 'messages',
  schema: messagesEnvelopeSchema,
  certainlyValid: messagesCertainlyValid,
  // Anthropic SDK users send x-api-key; Claude Code and OAuth-style clients send a bearer token.
  keyOf: (headers) => single(headers['x-api-key'])?.trim() || bearerKey(single(headers['authorization'])),
  keyHint: '`x-api-key: sk-...`',
  providers: providersFor('messages'),
  errorBody: (error, requestId) => anthropicErrorBody(error, requestId),
  streamErrorFrame: (error, requestId) =>
    `event: error\ndata: ${JSON.stringify(anthropicErrorBody(error, requestId))}\n\n`,
  resolveModel: resolveThinkingSuffix,
};

/** Responses clients are OpenAI clients: a bearer key, OpenAI's error shape, and in-stream errors as `error` events. */
export const responsesEndpoint: EndpointSpec = {
  name: 'responses',
  schema: responsesEnvelopeSchema,
  certainlyValid: responsesCertainlyValid,
  keyOf: (headers) => bearerKey(single(headers['authorization'])),
  keyHint: '`Authorization: Bearer sk-...`',
  providers: providersFor('responses'),
  prepare: continueStoredConversation,
  beforeAttempt: beforeResponsesAttempt,
  keeper: responsesKeeper,
  errorBody: (error) => openAIErrorBody(error),
  streamErrorFrame: (error) => {
    const { message, type, param, code } = openAIErrorBody(error).error;
    const event = { type: 'error', code: code ?? type, message, param, sequence_number: 0 };
    return `event: error\ndata: ${JSON.stringify(event)}\n\n`;
  },
};
