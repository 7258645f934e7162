/**
 * @module stores/cluster/clickhouse-tsv
 * Rows in ClickHouse's TabSeparated format, for the projector's raw inserts. The client's JSONEachRow
 * encoder (a `JSON.stringify` per row, then a copy per chunk) was 19% of the projector's CPU in a
 * profile, and ClickHouse parses TabSeparated faster than JSON too. In a text, the four characters
 * the format gives a meaning to are escaped; numbers are written as JavaScript prints them, which
 * ClickHouse reads back exactly (integers, and floats with or without an exponent).
 */

/**
 * A value written as it is: a composite value (an array) whose elements are quoted and escaped as
 * ClickHouse reads them inside the composite, which the text escaping above would escape twice.
 */
export class TsvRaw {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/** A value of one column: a text, a finite number, or a composite already in the format. */
export type TsvValue = string | number | TsvRaw;

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
    line += typeof value === 'number' ? tsvNumber(value) : typeof value === 'string' ? tsvText(value) : value.text;
  }
  return `${line}\n`;
}

/**
 * Lines encoded into buffers of about `bufferBytes` as they are added, for an insert's body. Encoding
 * each line on its own and writing it as its own chunk was 8% of the projector's CPU in a profile, one
 * socket write per few hundred bytes; joining lines into larger strings first was slower still (V8
 * flattens and then encodes each large string: 60–80 ms per 26,000 lines, against 5 ms written
 * straight into buffers). One chunk for a whole 10 MB insert was seen to stall the projector after a
 * reset insert (EPIPE) on a busy machine, so the buffers stay small. The projector encodes a batch's
 * rows when it reads the batch and keeps only the bytes until the write: the buffers live outside
 * V8's heap, where the garbage collector neither copies nor scans them.
 */
export class TsvBuffers {
  readonly #bufferBytes: number;
  readonly #done: Buffer[] = [];
  #buffer: Buffer | null = null;
  #used = 0;

  constructor(bufferBytes = 64 * 1024) {
    this.#bufferBytes = bufferBytes;
  }

  add(line: string): void {
    // A UTF-16 code unit takes at most 3 bytes in UTF-8.
    const most = line.length * 3;
    if (most > this.#bufferBytes) {
      this.#seal();
      this.#done.push(Buffer.from(line));
      return;
    }
    if (this.#buffer === null || this.#used + most > this.#bufferBytes) {
      this.#seal();
      this.#buffer = Buffer.allocUnsafe(this.#bufferBytes);
    }
    this.#used += this.#buffer.write(line, this.#used);
  }

  /** The buffers so far, in order; the last is copied to its size, so no unused room stays held. */
  take(): Buffer[] {
    this.#seal();
    return this.#done.splice(0);
  }

  /** A copy of the used part in memory of its own: `Buffer.from` would hand out a slice of Node's shared pool. */
  #copyUsed(): Buffer {
    const copy = Buffer.allocUnsafeSlow(this.#used);
    this.#buffer!.copy(copy, 0, 0, this.#used);
    return copy;
  }

  #seal(): void {
    if (this.#buffer === null) return;
    if (this.#used > 0)
      this.#done.push(this.#used * 2 < this.#bufferBytes ? this.#copyUsed() : this.#buffer.subarray(0, this.#used));
    this.#buffer = null;
    this.#used = 0;
  }
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
