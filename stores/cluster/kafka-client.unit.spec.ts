import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { kafkaChecksum, nativeChecksum } from './kafka-client.ts';

const require = createRequire(import.meta.url);
/** kafkajs's own CRC-32C, by its file: the reference the native sum must equal. */
const javascriptChecksum = require('kafkajs/src/protocol/recordBatch/crc32C/crc32C.js') as (buffer: Buffer) => number;
type RecordBatch = (options: { records: unknown[] }) => Promise<{ buffer: Buffer }>;
type Record = (options: { key: Buffer | null; value: Buffer; offsetDelta: number }) => unknown;

describe('kafkajs with a native CRC-32C', () => {
  it('loads kafkajs with the native checksum in its record batch encoder', () => {
    expect(kafkaChecksum).toBe('native');
    expect(require('kafkajs/src/protocol/recordBatch/crc32C/index.js')).toBe(nativeChecksum);
  });

  it('gives the standard check value and kafkajs’s own sums, for any bytes', () => {
    expect(nativeChecksum!(Buffer.from('123456789'))).toBe(0xe3069283);
    for (const size of [0, 1, 7, 64, 1_000, 150_000]) {
      const bytes = Buffer.from(Array.from({ length: size }, (_, index) => (index * 131 + size) % 256));
      expect(nativeChecksum!(bytes)).toBe(javascriptChecksum(bytes));
    }
  });

  it('writes into every record batch the sum of the bytes after it', async () => {
    const { RecordBatch } = require('kafkajs/src/protocol/recordBatch/v0/index.js') as { RecordBatch: RecordBatch };
    const Record = require('kafkajs/src/protocol/recordBatch/record/v0/index.js') as Record;
    const records = Array.from({ length: 300 }, (_, index) =>
      Record({ key: null, value: Buffer.from(JSON.stringify({ index, text: 'é'.repeat(index) })), offsetDelta: index }),
    );
    const { buffer } = await RecordBatch({ records });
    // first offset (8 bytes), the batch's length (4), its leader epoch (4), the magic byte, then the sum
    const sum = buffer.readUInt32BE(17);
    const body = buffer.subarray(21);
    expect(sum).toBe(javascriptChecksum(body));
    expect(sum).toBe(nativeChecksum!(body));
  });
});
