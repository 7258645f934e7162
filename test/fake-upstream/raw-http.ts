/** Raw-HTTP helpers for the fake's own suites, where the SDKs would hide the wire details under test. */
import { createParser, type EventSourceMessage } from 'eventsource-parser';

export const openaiHeaders = { authorization: 'Bearer test' };
export const anthropicHeaders = { 'x-api-key': 'test', 'anthropic-version': '2023-06-01' };
export const userHello = { role: 'user', content: 'Hello' };

/** POSTs a JSON value, or a string exactly as given (to send malformed bodies). */
export function post(url: string, body: unknown, headers: Record<string, string>): Promise<Response> {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: text });
}

/** Parses the whole body as SSE with an independent parser, so framing mistakes in the fake show up. */
export async function readEvents(response: Response): Promise<EventSourceMessage[]> {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  parser.feed(await response.text());
  return events;
}

/** Reads until the server cuts the connection; returns what arrived and whether reading failed. */
export async function readUntilCut(response: Response): Promise<{ text: string; failed: boolean }> {
  const reader = response.body?.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (let part = await reader?.read(); part && !part.done; part = await reader?.read()) {
      text += decoder.decode(part.value);
    }
    return { text, failed: false };
  } catch {
    return { text, failed: true };
  }
}
