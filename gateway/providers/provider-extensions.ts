/**
 * @module gateway/providers/provider-extensions
 * Optional capabilities a provider may offer beyond `provider.ts`, read by the relay when present:
 * warnings about dropped request fields (sent as `x-gateway-warnings`), frames to write when an
 * upstream stream ends without its own end event, frames that end a stream with the gateway's own
 * error where the format's end needs the stream's state (a Responses stream's `response.failed`
 * names the response), and whether a stream's usage was counted by the
 * gateway rather than reported by the upstream. The converting providers use all three.
 */
import type { BuiltRequest, StreamOutcome, StreamRelay } from './provider.ts';

export interface BuiltRequestWithWarnings extends BuiltRequest {
  /** what the conversion dropped or changed, one short sentence each */
  warnings: string[];
}

export interface FinishingStreamRelay extends StreamRelay {
  /** Frames to write when the upstream body ended without its end event; '' when it had one. */
  finish(): string;
}

/** An error the gateway ends a started stream with: its code and its message, as the client reads them. */
export interface StreamFailure {
  code: string;
  message: string;
}

export interface FailingStreamRelay extends StreamRelay {
  /** Frames that end the stream with `failure` in the client's format; '' leaves it to the endpoint's error frame. */
  fail(failure: StreamFailure): string;
}

export interface CountedStreamOutcome extends StreamOutcome {
  /** true when `usage` was counted with the tokenizer because the upstream reported none */
  usageEstimated: boolean;
}

export function withWarnings(built: BuiltRequest, warnings: string[]): BuiltRequestWithWarnings {
  // A request with many blocks of one dropped kind yields one warning, not one per block.
  return { ...built, warnings: [...new Set(warnings)] };
}

export function warningsOf(built: BuiltRequest): string[] {
  return (built as Partial<BuiltRequestWithWarnings>).warnings ?? [];
}

export function finishFrames(relay: StreamRelay): string {
  const finishing = relay as Partial<FinishingStreamRelay>;
  return typeof finishing.finish === 'function' ? finishing.finish() : '';
}

export function failFrames(relay: StreamRelay, failure: StreamFailure): string {
  const failing = relay as Partial<FailingStreamRelay>;
  return typeof failing.fail === 'function' ? failing.fail(failure) : '';
}

export function usageSourceOf(outcome: StreamOutcome): 'upstream' | 'estimated' {
  if (!outcome.usage) return 'estimated';
  return (outcome as Partial<CountedStreamOutcome>).usageEstimated ? 'estimated' : 'upstream';
}
