/**
 * @module gateway/providers/json-members
 * A same-format relay sends the client's own JSON text on, changing only the top-level members it
 * must (a mapped `model`, `stream_options.include_usage`, Anthropic's required `max_tokens`), instead
 * of serialising the parsed body again: for an agent's turn `JSON.stringify` costs more than the parse,
 * on every attempt (docs/performance.md, "Small choices on the hot path"). One pass finds where each
 * top-level member's value lies; strings, which are most of such a body, are skipped with `indexOf`.
 */

/** Where a top-level member's value starts and ends in the text ([start, end)). */
interface Span {
  start: number;
  end: number;
}

const QUOTE = 34; // "
const BACKSLASH = 92;

function isSpace(code: number): boolean {
  return code === 32 || code === 10 || code === 13 || code === 9;
}

function skipSpace(text: string, index: number): number {
  while (index < text.length && isSpace(text.charCodeAt(index))) index++;
  return index;
}

/** The index just past the string that opens at `index` (a quote). */
function endOfString(text: string, index: number): number {
  let at = index + 1;
  for (;;) {
    const quote = text.indexOf('"', at);
    if (quote < 0) throw new SyntaxError('unterminated string');
    let backslashes = 0;
    for (let back = quote - 1; text.charCodeAt(back) === BACKSLASH; back--) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    at = quote + 1;
  }
}

/** The index just past the value that starts at `index`. */
function endOfValue(text: string, index: number): number {
  const first = text.charCodeAt(index);
  if (first === QUOTE) return endOfString(text, index);
  if (first === 123 || first === 91) {
    let depth = 0;
    let at = index;
    while (at < text.length) {
      const code = text.charCodeAt(at);
      if (code === QUOTE) {
        at = endOfString(text, at);
        continue;
      }
      if (code === 123 || code === 91) depth++;
      else if (code === 125 || code === 93) {
        depth--;
        if (depth === 0) return at + 1;
      }
      at++;
    }
    throw new SyntaxError('unterminated value');
  }
  let at = index;
  while (at < text.length) {
    const code = text.charCodeAt(at);
    if (code === 44 || code === 125 || code === 93 || isSpace(code)) break;
    at++;
  }
  return at;
}

/** The spans of the wanted top-level members of the JSON object `text`; the last one wins, as in JSON.parse. */
function memberSpans(text: string, wanted: Set<string>): { open: number; spans: Map<string, Span> } {
  const spans = new Map<string, Span>();
  const open = skipSpace(text, 0);
  if (text.charCodeAt(open) !== 123) throw new SyntaxError('not an object');
  let at = skipSpace(text, open + 1);
  if (text.charCodeAt(at) === 125) return { open, spans };
  for (;;) {
    const keyEnd = endOfString(text, at);
    const rawKey = text.slice(at + 1, keyEnd - 1);
    const key = rawKey.includes('\\') ? (JSON.parse(text.slice(at, keyEnd)) as string) : rawKey;
    at = skipSpace(text, keyEnd);
    if (text.charCodeAt(at) !== 58) throw new SyntaxError('expected a colon');
    const start = skipSpace(text, at + 1);
    const end = endOfValue(text, start);
    if (wanted.has(key)) spans.set(key, { start, end });
    at = skipSpace(text, end);
    const next = text.charCodeAt(at);
    if (next === 125) return { open, spans };
    if (next !== 44) throw new SyntaxError('expected a comma');
    at = skipSpace(text, at + 1);
  }
}

/**
 * `text` (a JSON object, as the client sent it) with the given top-level members set to the given
 * values, written in place where the member is and added at the start where it is not. Everything else
 * is kept byte for byte. `text` must be valid JSON (it was parsed before).
 */
export function withMembers(text: string, members: Record<string, unknown>): string {
  const keys = Object.keys(members);
  if (keys.length === 0) return text;
  const { open, spans } = memberSpans(text, new Set(keys));
  const replacements = [...spans].map(([key, span]) => ({ ...span, value: JSON.stringify(members[key]) }));
  const added = keys.filter((key) => !spans.has(key));
  replacements.sort((a, b) => a.start - b.start);
  let result = '';
  let from = 0;
  if (added.length > 0) {
    const isEmpty = text.charCodeAt(skipSpace(text, open + 1)) === 125;
    const written = added.map((key) => `${JSON.stringify(key)}:${JSON.stringify(members[key])}`).join(',');
    result = `${text.slice(0, open + 1)}${written}${isEmpty ? '' : ','}`;
    from = open + 1;
  }
  for (const { start, end, value } of replacements) {
    result += text.slice(from, start) + value;
    from = end;
  }
  return result + text.slice(from);
}
