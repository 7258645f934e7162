/**
 * @module gateway/security/origin
 * A URL's origin as browsers compare them: scheme, host and port, default ports left out.
 */

/** `scheme://host[:port]` of an http(s) URL; null for anything else, `null` and `file:` included. */
export function originOf(url: string | undefined): string | null {
  if (!url) return null;
  try {
    const { origin, protocol } = new URL(url);
    return protocol === 'http:' || protocol === 'https:' ? origin : null;
  } catch {
    return null;
  }
}
