/**
 * @module test/cluster/testcontainers-node20
 * testcontainers 12.1+ declares Node >= 22.22 and brings undici 8, which binds `zlib.createZstdDecompress`
 * (Node >= 22.15) when it loads; on this project's Node 20 that throws before any container starts. The
 * Docker API never answers in zstd, so a function that refuses zstd lets it load. Import this before
 * testcontainers. (The lasting fix is a testcontainers release on undici 7, such as 11.14.0.)
 */
import workerThreads from 'node:worker_threads';
import zlib from 'node:zlib';

const library = zlib as { createZstdDecompress?: unknown };
library.createZstdDecompress ??= () => {
  throw new Error('zstd decompression needs Node 22.15 or newer');
};

// Marks objects as not transferable between threads (Node >= 22.10); nothing here transfers them.
const threads = workerThreads as { markAsUncloneable?: unknown };
threads.markAsUncloneable ??= () => undefined;
