/**
 * @module gateway/security/scrub-secrets
 * Takes secrets out of text an upstream wrote before the gateway shows, logs or records it. Some
 * proxies and self-hosted servers echo the request's `Authorization` or `x-api-key` header in their
 * error messages, which would hand the channel's upstream key to any client able to provoke an error.
 * Two passes: the secrets the gateway holds for the channel (whole, in any casing, and any fragment
 * long enough to narrow a guess), then anything shaped like a credential, whoever it belongs to.
 * Pure, and meant for error paths only: it costs a few regular expressions per call.
 */

export const REDACTED = '[redacted]';

/**
 * A fragment of a known secret at least this long is taken out too (an echo cut short, or split by
 * the upstream's own truncation). Shorter runs are too likely to be ordinary text.
 */
const FRAGMENT_LENGTH = 12;

/** A key shorter than this guards nothing (it falls to guessing), and taking it out would garble the text. */
const SHORTEST_SECRET = 4;

/** How deep `scrubJsonText` walks an upstream's JSON; anything deeper is dropped, not shown. */
const JSON_DEPTH = 32;

/** Characters a key or token is made of (base64, base64url, hex, and the usual separators). */
const TOKEN = String.raw`[\w.~+/=-]`;

/** Credentials by their shape, with the part to keep (a label, a scheme) in the first group. */
const credentialShapes: RegExp[] = [
  // An authorization scheme and its token: `Bearer eyJ…`, `Basic dXNlcjpwYXNz`.
  new RegExp(String.raw`(\b(?:Bearer|Basic|Token)\s+)${TOKEN}{8,}`, 'gi'),
  // A value labelled as a credential: `x-api-key: …`, `"api_key":"…"`, `secret_access_key=…`.
  new RegExp(
    String.raw`((?<![A-Za-z0-9])(?:x-api-key|api[_-]?key|authorization|access[_-]?token|secret[_-]?access[_-]?key|client[_-]?secret|password)[\\"'\s]*[:=][\\"'\s]*)(?!(?:Bearer|Basic|Token)\s)${TOKEN}{8,}`,
    'gi',
  ),
  // OpenAI and Anthropic keys (`sk-…`, `sk-proj-…`, `sk-ant-api03-…`) and their many imitators.
  /()\bsk-[\w-]{8,}/g,
  // AWS access key ids, Google API keys, GitHub and Slack tokens.
  /()\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g,
  /()\bAIza[\w-]{30,}/g,
  /()\bgh[pousr]_[A-Za-z0-9]{30,}/g,
  /()\bxox[abposr]-[\w-]{10,}/g,
];

const LABELLED_VALUE = credentialShapes[1]!;

/**
 * Every label the labelled-value shape starts with contains one of these: text
 * without any has no such value, and skips that shape, the one whose cost grows with the text
 * (1.3 ms for a 66 KB body, against 0.2 ms for this test).
 */
const CREDENTIAL_LABEL = /api[_-]?key|authorization|access[_-]?token|secret|password/i;

/** The text with every credential-shaped run replaced by `[redacted]`. */
export function scrubCredentials(text: string): string {
  const labelled = CREDENTIAL_LABEL.test(text);
  let scrubbed = text;
  for (const shape of credentialShapes) {
    if (shape === LABELLED_VALUE && !labelled) continue;
    scrubbed = scrubbed.replace(shape, `$1${REDACTED}`);
  }
  return scrubbed;
}

/** The text with every given secret and every credential-shaped run replaced by `[redacted]`. */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let scrubbed = text;
  for (const secret of secrets) scrubbed = withoutSecret(scrubbed, secret);
  return scrubCredentials(scrubbed);
}

/** What holds a channel's upstream keys (a routable channel, or one built for the channel test). */
export interface SecretHolder {
  apiKey: string;
  apiKeys?: readonly string[] | undefined;
}

/** The upstream keys a channel holds: what its error text must never show. */
export function channelSecrets(channel: SecretHolder | undefined): readonly string[] {
  if (!channel) return [];
  return channel.apiKeys && channel.apiKeys.length > 0 ? [channel.apiKey, ...channel.apiKeys] : [channel.apiKey];
}

/**
 * The text with every given secret replaced, and nothing else: for what a user wrote and will read
 * back (a stored conversation), where their own credential-shaped text is theirs to keep.
 */
export function scrubKnownSecrets(text: string, secrets: readonly string[]): string {
  let scrubbed = text;
  for (const secret of secrets) scrubbed = withoutSecret(scrubbed, secret);
  return scrubbed;
}

type Scrub = (text: string, secrets: readonly string[]) => string;

/**
 * An upstream's JSON (an in-stream error event) without secrets. Text with none is returned as it
 * came, byte for byte. Otherwise every string in it, keys included, is scrubbed and the JSON written
 * again: scrubbing the text as written would miss a key spelled with `\u` escapes. Text that is not
 * JSON, or too deep to walk, is scrubbed as text. `scrub` says what goes: by default the secrets and
 * anything credential-shaped; `scrubKnownSecrets` for the secrets alone.
 */
export function scrubJsonText(text: string, secrets: readonly string[], scrub: Scrub = scrubSecrets): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return scrub(text, secrets);
  }
  let normalized: string;
  try {
    normalized = JSON.stringify(value);
  } catch {
    // Nested past the stack's depth: no client parser would read it as JSON either.
    return scrub(text, secrets);
  }
  if (scrub(normalized, secrets) === normalized) return text;
  return JSON.stringify(scrubValue(value, secrets, 0, scrub));
}

function scrubValue(value: unknown, secrets: readonly string[], depth: number, scrub: Scrub): unknown {
  if (typeof value === 'string') return scrub(value, secrets);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= JSON_DEPTH) return null;
  if (Array.isArray(value)) return value.map((item) => scrubValue(item, secrets, depth + 1, scrub));
  // No prototype: a `__proto__` key stays an ordinary key.
  const scrubbed: Record<string, unknown> = Object.create(null);
  for (const [key, item] of Object.entries(value))
    scrubbed[scrub(key, secrets)] = scrubValue(item, secrets, depth + 1, scrub);
  return scrubbed;
}

/**
 * Every occurrence of the secret, compared without regard to case, and every run of at least
 * FRAGMENT_LENGTH characters that also occurs in it. Runs are marked window by window and replaced
 * once, so overlapping windows become one `[redacted]`.
 */
function withoutSecret(text: string, secret: string): string {
  if (secret.length < SHORTEST_SECRET || text.length === 0) return text;
  const lowerText = text.toLowerCase();
  const lowerSecret = secret.toLowerCase();
  // Lower-casing can change a string's length (a few non-ASCII letters); offsets then no longer match.
  if (lowerText.length !== text.length) return text.split(secret).join(REDACTED);
  const window = Math.min(FRAGMENT_LENGTH, lowerSecret.length);
  let marked: Uint8Array | null = null;
  for (let start = 0; start + window <= lowerSecret.length; start++) {
    const piece = lowerSecret.slice(start, start + window);
    for (let at = lowerText.indexOf(piece); at !== -1; at = lowerText.indexOf(piece, at + 1)) {
      marked ??= new Uint8Array(text.length);
      marked.fill(1, at, at + window);
    }
  }
  if (!marked) return text;
  let result = '';
  let index = 0;
  while (index < text.length) {
    if (marked[index] === 0) {
      const next = marked.indexOf(1, index);
      const end = next === -1 ? text.length : next;
      result += text.slice(index, end);
      index = end;
    } else {
      const next = marked.indexOf(0, index);
      index = next === -1 ? text.length : next;
      result += REDACTED;
    }
  }
  return result;
}
