/**
 * @module gateway/providers/converting-provider
 * The adapter that serves a client format from a channel kind of another format, for any kind: the
 * client's request goes through the format's reader and the kind's request writer
 * (converted-request.ts); the upstream's reply through the kind's reader, the filters (the JSON
 * answer tool the writer added, thinking as `<think>` text on channels that ask for it) and the
 * format's writer. Everything kind-specific comes from the kind's entry (kinds.ts), everything
 * format-specific from the `IngressFormat`.
 */
import { ConvertingStreamRelay } from './conversion/converting-stream-relay.ts';
import { JsonToolToContent, jsonToolToContentReply } from './conversion/json-response-tool.ts';
import type { Reply, ReplyPart, ReplyPartFilter } from './conversion/reply.ts';
import { replyText, withModel, withUsage } from './conversion/reply-text.ts';
import { ThinkingToContent, thinkingToContentReply } from './conversion/thinking-to-content.ts';
import { type RequestTarget, requestConverter } from './converted-request.ts';
import type { UpstreamKind } from './kinds.ts';
import type { Provider, RelayInput, ResponseReading, TokenCounts } from './provider.ts';
import { withWarnings } from './provider-extensions.ts';
import type { ReadRequest } from './read-request.ts';

export interface IngressFormat {
  /**
   * the client's body (checked by the endpoint's contract) as the neutral request; `request` says what
   * a format that keeps them outside the body (Gemini's URL) could not read there
   */
  read(body: Record<string, unknown>, target: string, request: RequestTarget): ReadRequest;
  /** the client's headers the kind may read (an Anthropic client's `anthropic-beta`); others get none */
  passHeaders: boolean;
  /** the client did not ask for a usage chunk (chat completions' `stream_options`) */
  hidesUsage?(body: Record<string, unknown>): boolean;
  writeReply(reply: Reply & { usage: TokenCounts }, body: Record<string, unknown>): unknown;
  createStreamWriter(options: { body: Record<string, unknown>; hideUsageChunk: boolean }): {
    write(part: ReplyPart): string;
  };
}

/** `format` served by a channel of `kind`; `target` names the kind in warnings ("no Anthropic equivalent"). */
export function convertingProvider(format: IngressFormat, kind: UpstreamKind, target: string): Provider {
  const converter = requestConverter((body, request) => format.read(body, target, request), kind, target);
  const convert = (input: RelayInput) =>
    converter(input.body, { model: input.route.upstreamModel, stream: input.stream });

  function filters(input: RelayInput): ReplyPartFilter[] {
    const { answerTool } = convert(input);
    return [
      ...(answerTool ? [new JsonToolToContent(answerTool)] : []),
      ...(input.route.channel.thinkingToContent ? [new ThinkingToContent()] : []),
    ];
  }

  function filtered(reply: Reply, input: RelayInput): Reply {
    const { answerTool } = convert(input);
    const answered = answerTool ? jsonToolToContentReply(reply, answerTool) : reply;
    return input.route.channel.thinkingToContent ? thinkingToContentReply(answered) : answered;
  }

  return {
    buildRequest(input) {
      const converted = convert(input);
      const { body, warnings } = converted;
      converted.text ??= JSON.stringify(body);
      // The query string is the client format's (`?beta=true`): the kind's own URL takes none of it.
      const headers = format.passHeaders ? input.clientHeaders : {};
      // The printed body stands for the client's text: the kind's builder edits it rather than print again.
      const client = { body, text: converted.text };
      const built = kind.buildRequest({ ...input, body, client, clientHeaders: headers, clientQuery: '' });
      const hideUsageChunk = format.hidesUsage ? format.hidesUsage(input.body) : built.hideUsageChunk;
      return withWarnings({ ...built, hideUsageChunk }, warnings);
    },
    readResponse(body, input): ResponseReading {
      const reply = filtered(withModel(kind.readReply(body), input.route.upstreamModel), input);
      const completionText = replyText(reply);
      return {
        usage: reply.usage,
        usageRefused: reply.usageRefused ?? null,
        model: reply.model || null,
        completionText,
        clientBody: format.writeReply(withUsage(reply, input.body, completionText), input.body),
      };
    },
    createStreamRelay({ hideUsageChunk, input }) {
      return new ConvertingStreamRelay({
        reader: kind.createStreamReader(),
        filters: filters(input),
        writer: format.createStreamWriter({ body: input.body, hideUsageChunk }),
        clientBody: input.body,
        channel: input.route.channel,
        askedModel: input.route.upstreamModel,
      });
    },
  };
}
