/**
 * @module gateway/security/scrubbed-event
 * An event built from what an upstream answered (a stored response), printed once and scrubbed of the
 * channel's keys before it is kept. When no key is in it, which is nearly always, the event itself is
 * kept as it is and its printed text measured: no parse of the text back into a copy, and no second
 * print and parse inside the scrub. The text is JSON.stringify's own, the one spelling scrubJsonText
 * normalises to, so looking for a key in it finds what scrubJsonText would.
 */
import { scrubJsonText, scrubKnownSecrets } from './scrub-secrets.ts';

export interface ScrubbedEvent<T> {
  event: T;
  /** the event as JSON, without the keys */
  text: string;
  bytes: number;
}

export function scrubbedEvent<T>(event: T, secrets: readonly string[]): ScrubbedEvent<T> {
  const printed = JSON.stringify(event);
  if (scrubKnownSecrets(printed, secrets) === printed) {
    return { event, text: printed, bytes: Buffer.byteLength(printed) };
  }
  const text = scrubJsonText(printed, secrets, scrubKnownSecrets);
  return { event: JSON.parse(text) as T, text, bytes: Buffer.byteLength(text) };
}
