/**
 * SSE helpers for the conversion tests: fixtures as the events the relay's parser hands a stream
 * relay, and a client-side parse of the frames a relay writes (as the SDKs' decoders read them).
 */
import { createParser } from 'eventsource-parser';
import type { SseEvent, StreamRelay } from '../../../gateway/providers/provider.ts';
import { finishFrames } from '../../../gateway/providers/provider-extensions.ts';
import { loadStreamFixture } from '../../fake-upstream/fixtures.ts';

export interface ParsedEvent {
  event: string | undefined;
  data: string;
}

/** A stream fixture as upstream events; Anthropic events get their `event:` name from `type`, as the fake writes them. */
export function fixtureEvents(name: string): SseEvent[] {
  return loadStreamFixture(name).chunks.map((data) =>
    name.startsWith('anthropic-') ? { event: (JSON.parse(data) as { type: string }).type, data } : { data },
  );
}

/** Feeds events one at a time, as the relay would, then lets the relay close a stream that had no end event. */
export function runRelay(relay: StreamRelay, events: readonly SseEvent[]): string {
  let written = '';
  for (const event of events) written += relay.onEvent(event);
  return written + finishFrames(relay);
}

export function parseFrames(text: string): ParsedEvent[] {
  const events: ParsedEvent[] = [];
  const parser = createParser({ onEvent: (event) => events.push({ event: event.event, data: event.data }) });
  parser.feed(text);
  return events;
}
