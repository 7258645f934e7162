/**
 * Metadata written as lines of `key=value` (the key form, the log's filter), to and from the object
 * the API takes. Names follow the API's rule (letters, digits and `_ - . :`), so a bad line is named
 * here before the server would refuse it.
 */
const namePattern = /^[A-Za-z0-9_.:-]{1,64}$/;

/** The object the lines say, or null when a line is not `key=value` with a valid name. */
export function parseMetadataLines(text: string): Record<string, string> | null {
  const entries: Array<[string, string]> = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const at = line.indexOf('=');
    if (at < 0) return null;
    const name = line.slice(0, at).trim();
    if (!namePattern.test(name)) return null;
    entries.push([name, line.slice(at + 1).trim()]);
  }
  return Object.fromEntries(entries);
}

export function metadataLines(metadata: Record<string, string> | null | undefined): string {
  return Object.entries(metadata ?? {})
    .map(([name, value]) => `${name}=${value}`)
    .join('\n');
}

/** `metadata.<key>` query parameters of a metadata filter. */
export function metadataQuery(metadata: Record<string, string>): Record<`metadata.${string}`, string> {
  return Object.fromEntries(Object.entries(metadata).map(([name, value]) => [`metadata.${name}`, value]));
}
