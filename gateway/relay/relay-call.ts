/**
 * @module gateway/relay/relay-call
 * What one relayed request carries through its attempts (relay-handler.ts) and into the reply
 * handling of one attempt (relay-buffered.ts, relay-streamed.ts): one object instead of a long list
 * of positional parameters.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BuiltRequest, Provider, RelayInput } from '../providers/provider.ts';
import type { Route } from './channel-router.ts';
import type { ClientAbort } from './client-abort.ts';
import { millisecondsSince } from './elapsed.ts';
import type { EndpointSpec } from './endpoints.ts';
import type { RelayDependencies } from './relay-handler.ts';
import type { RequestHolds } from './request-holds.ts';
import type { RequestRecord } from './request-record.ts';

export interface RelayCall {
  endpoint: EndpointSpec;
  request: IncomingMessage;
  response: ServerResponse;
  record: RequestRecord;
  dependencies: RelayDependencies;
  /** fires when the client goes away; ends the upstream call */
  signal: ClientAbort;
  /** the ledger holds to settle before the answer's last byte (request-holds.ts) */
  holds?: RequestHolds;
  /** the body as the client sent it, and the object it parsed to (see RelayInput.clientText) */
  client?: { body: Record<string, unknown>; text: string };
}

/** One attempt's status and time, kept in the record's retry chain. */
export interface AttemptTiming {
  status: number;
  latencyMs: number;
}

/** One attempt at one channel: the request built for it and where its answer is noted. */
export interface UpstreamExchange {
  provider: Provider;
  input: RelayInput;
  built: BuiltRequest;
  route: Route;
  attempt: AttemptTiming;
}

/** How much of an upstream's error body is read into the error shown to the client. */
export const MAX_ERROR_BODY = 64 * 1024;

/** The attempt's answer: its status and time for the retry chain, a success for the channel's breaker. */
export function noteAnswer(call: RelayCall, exchange: UpstreamExchange, statusCode: number, started: number): void {
  exchange.attempt.status = statusCode;
  exchange.attempt.latencyMs = millisecondsSince(started);
  if (statusCode < 400) call.dependencies.breakers?.onSuccess(exchange.route.channel.channelId);
}
