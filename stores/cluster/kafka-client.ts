/**
 * @module stores/cluster/kafka-client
 * kafkajs, loaded with a native CRC-32C for the record batches it produces. kafkajs sums every batch in
 * JavaScript, a byte at a time, the largest part of the pause a Kafka send makes in a cluster node's
 * request handling; `@node-rs/crc32` does the same sum with the CPU's CRC instruction (figures:
 * docs/performance.md, "A native CRC-32C").
 *
 * kafkajs takes no checksum option: its record batch encoder requires `recordBatch/crc32C` once, when
 * kafkajs is loaded. So this module puts its own function in the CommonJS module cache under that
 * file's name and only then requires kafkajs; a static import of kafkajs would be evaluated first (and a
 * bundler hoists it above everything). If something loaded kafkajs before, or the native binary is
 * missing on this platform, kafkajs keeps its own checksum, which gives the same values;
 * `kafkaChecksum` says which one is in use.
 */
import { createRequire, Module } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * Puts the native sum where kafkajs's encoder will require its own, and returns it; null when kafkajs
 * was loaded already or the binary is missing.
 */
function installChecksum(): ((buffer: Uint8Array) => number) | null {
  const checksumPath = require.resolve('kafkajs/src/protocol/recordBatch/crc32C/index.js');
  const encoderPath = require.resolve('kafkajs/src/protocol/recordBatch/v0/index.js');
  if (require.cache[encoderPath] || require.cache[checksumPath]) return null;
  let crc32c: (input: Uint8Array) => number;
  try {
    ({ crc32c } = require('@node-rs/crc32') as { crc32c: (input: Uint8Array) => number });
  } catch {
    return null;
  }
  // kafkajs writes the sum with writeUInt32: an unsigned 32-bit value, as its own function returns.
  const checksum = (buffer: Uint8Array) => crc32c(buffer) >>> 0;
  const entry = new Module(checksumPath);
  entry.filename = checksumPath;
  entry.loaded = true;
  entry.exports = checksum;
  require.cache[checksumPath] = entry;
  return checksum;
}

/** The function given to kafkajs, when it is the native one (for the tests). */
export const nativeChecksum = installChecksum();
/** The CRC-32C of the batches kafkajs encodes: `native`, or kafkajs's own (`javascript`). */
export const kafkaChecksum: 'native' | 'javascript' = nativeChecksum ? 'native' : 'javascript';

const kafkajs = require('kafkajs') as typeof import('kafkajs');
export const { Kafka, logLevel } = kafkajs;
