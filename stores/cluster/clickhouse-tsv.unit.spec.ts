import { describe, expect, it } from 'vitest';
import { TsvBuffers, tsvField, tsvLine, tsvRows, tsvText } from './clickhouse-tsv.ts';

/** `lines` added one by one, then taken. */
function tsvBuffers(lines: readonly string[], bufferBytes: number): Buffer[] {
  const buffers = new TsvBuffers(bufferBytes);
  for (const line of lines) buffers.add(line);
  return buffers.take();
}

describe('TabSeparated rows for ClickHouse', () => {
  it('escapes the characters the format gives a meaning to, and nothing else', () => {
    expect(tsvText('plain text, "quoted", é ✓')).toBe('plain text, "quoted", é ✓');
    expect(tsvText('a\tb\nc\\d\re')).toBe('a\\tb\\nc\\\\d\\re');
    expect(tsvText('\\n')).toBe('\\\\n');
  });

  it('writes the values in order, numbers as JavaScript prints them, one line per row', () => {
    expect(tsvLine(['id\t1', 1_764_000_000, 0.5, 1e-7, ''])).toBe('id\\t1\t1764000000\t0.5\t1e-7\t\n');
  });

  it('refuses a number ClickHouse would reject the whole insert for', () => {
    expect(() => tsvLine(['a', Number.NaN])).toThrow('Not a finite number');
    expect(() => tsvLine([Number.POSITIVE_INFINITY])).toThrow('Not a finite number');
  });
});

describe('TsvBuffers', () => {
  it('encodes lines into buffers of at most the given size, in order, losing none', () => {
    const lines = Array.from({ length: 10 }, (_, index) => `line ${index} é\n`);
    const buffers = tsvBuffers(lines, 64);
    expect(Buffer.concat(buffers).toString('utf8')).toBe(lines.join(''));
    expect(buffers.length).toBeGreaterThan(1);
    expect(buffers.every((buffer) => buffer.length <= 64)).toBe(true);
    expect(tsvBuffers([], 64)).toEqual([]);
  });

  it('keeps a mostly empty last buffer as a copy of its size, and takes each line once', () => {
    const buffers = new TsvBuffers(64 * 1024);
    buffers.add('a\tb\n');
    const first = buffers.take();
    expect(first.map((buffer) => buffer.toString('utf8'))).toEqual(['a\tb\n']);
    expect(first[0]!.buffer.byteLength).toBe(first[0]!.length);
    buffers.add('c\n');
    expect(buffers.take().map((buffer) => buffer.toString('utf8'))).toEqual(['c\n']);
    expect(buffers.take()).toEqual([]);
  });

  it('sends a line longer than a buffer on its own', () => {
    const long = `${'x'.repeat(100)}\n`;
    const buffers = tsvBuffers(['a\n', long, 'b\n'], 64);
    expect(buffers.map((buffer) => buffer.toString('utf8'))).toEqual(['a\n', long, 'b\n']);
  });
});

describe("reading ClickHouse's TabSeparated answers", () => {
  it('undoes every escape sequence the format writes, and leaves other text alone', () => {
    expect(tsvField('plain, "quoted", é ✓')).toBe('plain, "quoted", é ✓');
    expect(tsvField("a\\tb\\nc\\\\d\\re\\0f\\bg\\fh\\'i")).toBe("a\tb\nc\\d\re\0f\bg\fh'i");
    expect(tsvField('\\\\n')).toBe('\\n');
  });

  it('splits an answer into rows of fields, the last line ending with a newline or not', () => {
    expect(tsvRows('1\ta\\tb\t3\n2\t\t4\n')).toEqual([
      ['1', 'a\\tb', '3'],
      ['2', '', '4'],
    ]);
    expect(tsvRows('1\t2')).toEqual([['1', '2']]);
    expect(tsvRows('')).toEqual([]);
  });
});
