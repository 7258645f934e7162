/**
 * @module stores/cluster/clickhouse-tsv
 * Rows in ClickHouse's TabSeparated format, for the projector's raw inserts. The client's JSONEachRow
 * encoder (a `JSON.stringify` per row, then a copy per chunk) was 19% of the projector's CPU in a
 * profile, and ClickHouse parses TabSeparated faster than JSON too. In a text, the four characters
 * the format gives a meaning to are escaped; numbers are written as JavaScript prints them, which
 * ClickHouse reads back exactly (integers, and floats with or without an exponent).
 */

/** A value of one column: a text, or a finite number. */
export type TsvValue = string | number;

const special = /[\\\t\n\r]/;
const specialAll = /[\\\t\n\r]/g;
const escapes: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

export function tsvText(text: string): string {
  return special.test(text) ? text.replace(specialAll, (character) => escapes[character]!) : text;
}

function tsvNumber(value: number): string {
  // A NaN or an infinity would make ClickHouse refuse the whole insert: the events' contract rules
  // them out, and a row holding one is a bug to see, not to write.
  if (!Number.isFinite(value)) throw new Error(`Not a finite number for ClickHouse: ${value}`);
  return String(value);
}

/** One line: the values in the table's column order, then a newline. */
export function tsvLine(values: readonly TsvValue[]): string {
  let line = '';
  for (let index = 0; index < values.length; index++) {
    const value = values[index]!;
    if (index > 0) line += '\t';
    line += typeof value === 'number' ? tsvNumber(value) : tsvText(value);
  }
  return `${line}\n`;
}

/**
 * Lines encoded into buffers of about `bufferBytes`, for an insert's body. Encoding each line on its
 * own and writing it as its own chunk was 8% of the projector's CPU in a profile, one socket write per
 * few hundred bytes; joining lines into larger strings first was slower still (V8 flattens and then
 * encodes each large string: 60–80 ms per 26,000 lines, against 5 ms written straight into buffers).
 * One chunk for a whole 10 MB insert was seen to stall the projector after a reset insert (EPIPE) on a
 * busy machine, so the buffers stay small.
 */
export function* tsvBuffers(lines: readonly string[], bufferBytes = 128 * 1024): Generator<Buffer> {
  let buffer = Buffer.allocUnsafe(bufferBytes);
  let used = 0;
  for (const line of lines) {
    // A UTF-16 code unit takes at most 3 bytes in UTF-8.
    const most = line.length * 3;
    if (used + most > bufferBytes && used > 0) {
      yield buffer.subarray(0, used);
      buffer = Buffer.allocUnsafe(bufferBytes);
      used = 0;
    }
    if (most > bufferBytes) yield Buffer.from(line);
    else used += buffer.write(line, used);
  }
  if (used > 0) yield buffer.subarray(0, used);
}

/** What a backslash sequence of ClickHouse's TabSeparated output stands for. */
const unescapes: Record<string, string> = { b: '\b', f: '\f', r: '\r', n: '\n', t: '\t', '0': '\0' };
const escaped = /\\(.)/gs;

/** A text field of ClickHouse's TabSeparated output, its backslash sequences undone. */
export function tsvField(field: string): string {
  return field.includes('\\')
    ? field.replace(escaped, (_, character: string) => unescapes[character] ?? character)
    : field;
}

/**
 * The rows of a TabSeparated answer, each a list of its fields still escaped (numbers need no
 * unescaping; pass texts through `tsvField`). A field never holds a raw tab or newline: the format
 * escapes both, so splitting on them is exact.
 */
export function tsvRows(text: string): string[][] {
  const rows: string[][] = [];
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    rows.push(text.slice(start, end).split('\t'));
    start = end + 1;
  }
  return rows;
}
