/**
 * The Bedrock Converse fixtures in `__fixtures__/bedrock/` (apart from the SSE fixtures, which the
 * other suites list by name): `<case>.json` is a Converse reply, or an error envelope
 * `{ status, headers, body }`; `<case>-stream.events.json` lists a ConverseStream's events
 * (`{ event, payload }`, or `{ exception, payload }` for an error in the stream), which
 * `encodeConverseStream` frames as AWS's binary event stream with AWS's own codec.
 */
import { readFileSync } from 'node:fs';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import type { MessageHeaders } from '@smithy/types';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';

const directory = new URL('./__fixtures__/bedrock/', import.meta.url);
const codec = new EventStreamCodec(toUtf8, fromUtf8);

export type StreamEntry = { event: string; payload: unknown } | { exception: string; payload: unknown };

export interface ErrorEnvelope {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export function bedrockReply(name: string): Record<string, any> {
  return JSON.parse(readFileSync(new URL(`${name}.json`, directory), 'utf8'));
}

export function bedrockError(name: string): ErrorEnvelope {
  return bedrockReply(name) as ErrorEnvelope;
}

export function bedrockStreamEvents(name: string): StreamEntry[] {
  return JSON.parse(readFileSync(new URL(`${name}.events.json`, directory), 'utf8'));
}

export function hasBedrockStream(name: string): boolean {
  try {
    readFileSync(new URL(`${name}.events.json`, directory));
    return true;
  } catch {
    return false;
  }
}

/** One event-stream message, as Bedrock sends it. */
export function encodeEntry(entry: StreamEntry): Buffer {
  const body = fromUtf8(JSON.stringify(entry.payload));
  const headers: MessageHeaders =
    'exception' in entry
      ? {
          ':message-type': { type: 'string' as const, value: 'exception' },
          ':exception-type': { type: 'string' as const, value: entry.exception },
          ':content-type': { type: 'string' as const, value: 'application/json' },
        }
      : {
          ':message-type': { type: 'string' as const, value: 'event' },
          ':event-type': { type: 'string' as const, value: entry.event },
          ':content-type': { type: 'string' as const, value: 'application/json' },
        };
  return Buffer.from(codec.encode({ headers, body }));
}

/** A whole ConverseStream body. */
export function encodeConverseStream(entries: readonly StreamEntry[]): Buffer {
  return Buffer.concat(entries.map(encodeEntry));
}
