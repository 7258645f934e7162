/** Reads a whole streamed response from the gateway as the SSE events a client parser sees. */
import { type ParsedEvent, parseFrames } from './sse.ts';

export async function readFrames(response: Response): Promise<ParsedEvent[]> {
  return parseFrames(await response.text());
}
