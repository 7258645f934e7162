/**
 * A Vite plugin that writes a brotli (`.br`) and a gzip (`.gz`) copy beside each text asset of the
 * build, so that the gateway sends them as they are (gateway/console-api/static-files.ts) instead of
 * compressing at every request, or not at all. Brotli at its highest quality costs a second or two at
 * build time and saves about a fifth over gzip on the chart chunk.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Plugin } from 'vite';

const COMPRESSIBLE = /\.(js|mjs|css|html|svg|json|txt|map)$/;
/** Below this, the headers cost more than compression saves. */
const MIN_BYTES = 1024;

export function compressedCopies(source: string | Uint8Array): { br: Buffer; gz: Buffer } {
  const bytes = typeof source === 'string' ? Buffer.from(source) : Buffer.from(source);
  return {
    br: brotliCompressSync(bytes, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      },
    }),
    gz: gzipSync(bytes, { level: 9 }),
  };
}

/**
 * Compresses the files as written: Vite rewrites chunks (its preload helper, for one) up to the end of
 * `generateBundle`, so copies made there could differ from the files served beside them.
 */
export function precompress(): Plugin {
  return {
    name: 'console-precompress',
    apply: 'build',
    writeBundle(options, bundle) {
      const directory = options.dir!;
      for (const file of Object.values(bundle)) {
        if (!COMPRESSIBLE.test(file.fileName)) continue;
        const source = readFileSync(path.join(directory, file.fileName));
        if (source.length < MIN_BYTES) continue;
        const { br, gz } = compressedCopies(source);
        writeFileSync(path.join(directory, `${file.fileName}.br`), br);
        writeFileSync(path.join(directory, `${file.fileName}.gz`), gz);
      }
    },
  };
}
