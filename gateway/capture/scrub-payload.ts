/**
 * @module gateway/capture/scrub-payload
 * Secrets out of a captured side, at a cost a captured request can carry on the serving thread: every
 * known secret (the request's gateway key, every channel's upstream keys) replaced where it appears
 * whole, then every credential-shaped run (`Authorization: Bearer …`, `"api_key": "…"`, `sk-…`), as
 * in error texts. Fragments of a known secret are not searched for, unlike in error texts
 * (scrub-secrets.ts): that search costs 6 ms for a 66 KB body, and a fragment of a key the client
 * never held does not appear in what it sends; the whole key, or one shaped like a credential, does.
 */
import { REDACTED, scrubCredentials } from '../security/scrub-secrets.ts';

/** A key shorter than this would take ordinary words with it. */
const SHORTEST_SECRET = 8;

export function scrubPayload(text: string, secrets: readonly string[]): string {
  let scrubbed = text;
  for (const secret of secrets) {
    if (secret.length >= SHORTEST_SECRET && scrubbed.includes(secret)) scrubbed = scrubbed.split(secret).join(REDACTED);
  }
  return scrubCredentials(scrubbed);
}
