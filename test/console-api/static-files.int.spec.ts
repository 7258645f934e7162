/**
 * The console's files over HTTP: a file built with `.br` and `.gz` copies is sent in the encoding the
 * browser prefers among those it accepts (brotli, else gzip, else as it is), always with
 * `Vary: Accept-Encoding`; hashed assets are cached for a year as immutable, index.html is revalidated
 * at every load. Before, every file went out uncompressed with `max-age=3600`.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compressedCopies, precompress } from '../../console/vite-precompress.ts';
import { acceptedEncodings, consoleStaticFiles } from '../../gateway/console-api/static-files.ts';

const script = `export const rows = [${Array.from({ length: 2000 }, (_, index) => `"row ${index}"`).join(',')}];\n`;
let directory: string;
let server: ReturnType<express.Express['listen']>;
let baseUrl: string;

async function get(file: string, acceptEncoding: string): Promise<{ response: Response; body: Buffer }> {
  // fetch would decode (and hide) the encoding: ask with a plain request instead.
  const http = await import('node:http');
  return new Promise((resolve, reject) => {
    http
      .get(`${baseUrl}${file}`, { headers: { 'accept-encoding': acceptEncoding } }, (message) => {
        const chunks: Buffer[] = [];
        message.on('data', (chunk: Buffer) => chunks.push(chunk));
        message.on('end', () =>
          resolve({
            response: new Response(null, {
              status: message.statusCode,
              headers: Object.entries(message.headers).map(([name, value]): [string, string] => [name, String(value)]),
            }),
            body: Buffer.concat(chunks),
          }),
        );
      })
      .on('error', reject);
  });
}

beforeAll(async () => {
  directory = mkdtempSync(path.join(tmpdir(), 'console-static-'));
  mkdirSync(path.join(directory, 'assets'));
  writeFileSync(path.join(directory, 'index.html'), '<!doctype html><title>console</title>');
  const { br, gz } = compressedCopies(script);
  writeFileSync(path.join(directory, 'assets/chart-a1b2c3.js'), script);
  writeFileSync(path.join(directory, 'assets/chart-a1b2c3.js.br'), br);
  writeFileSync(path.join(directory, 'assets/chart-a1b2c3.js.gz'), gz);
  writeFileSync(path.join(directory, 'assets/tiny-d4e5f6.css'), 'a{color:red}');
  const app = express();
  app.use(consoleStaticFiles(directory));
  await new Promise<void>((resolve) => {
    server = app.listen(0, '127.0.0.1', () => resolve());
  });
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server?.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('the console’s static files', () => {
  it('sends brotli to a browser that takes it, gzip to one that takes only gzip, else the file as it is', async () => {
    const brotli = await get('/assets/chart-a1b2c3.js', 'gzip, deflate, br, zstd');
    expect(brotli.response.headers.get('content-encoding')).toBe('br');
    expect(brotli.response.headers.get('content-type')).toMatch(/^text\/javascript|^application\/javascript/);
    expect(brotli.response.headers.get('vary')).toMatch(/accept-encoding/i);
    expect(brotliDecompressSync(brotli.body).toString()).toBe(script);
    expect(brotli.body.length).toBeLessThan(script.length / 4);

    const gzip = await get('/assets/chart-a1b2c3.js', 'gzip;q=1.0, br;q=0');
    expect(gzip.response.headers.get('content-encoding')).toBe('gzip');
    expect(gunzipSync(gzip.body).toString()).toBe(script);

    const identity = await get('/assets/chart-a1b2c3.js', 'identity');
    expect(identity.response.headers.get('content-encoding')).toBeNull();
    expect(identity.response.headers.get('vary')).toMatch(/accept-encoding/i);
    expect(identity.body.toString()).toBe(script);
  });

  it('keeps hashed assets for a year as immutable, and revalidates index.html', async () => {
    for (const [file, encoding] of [
      ['/assets/chart-a1b2c3.js', 'br'],
      ['/assets/chart-a1b2c3.js', 'identity'],
      ['/assets/tiny-d4e5f6.css', 'br'],
    ] as const) {
      const { response } = await get(file, encoding);
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    }
    for (const file of ['/', '/index.html']) {
      const { response, body } = await get(file, 'br');
      expect(body.toString()).toContain('<title>console</title>');
      expect(response.headers.get('cache-control')).toBe('no-cache');
    }
  });

  it('never serves a path outside the console’s folder', async () => {
    expect((await get('/assets/../../etc/passwd', 'br')).response.status).toBe(404);
    expect((await get('/%2e%2e/%2e%2e/etc/passwd', 'br')).response.status).toBe(404);
  });

  it('reads Accept-Encoding with its weights and wildcard', () => {
    expect([...acceptedEncodings('br;q=0, *')].sort()).toEqual(['*', 'gzip']);
    expect([...acceptedEncodings(undefined)]).toEqual(['']);
    expect(acceptedEncodings('gzip;q=0.5, br;q=0.0').has('br')).toBe(false);
  });
});

describe('the build’s precompression plugin', () => {
  it('writes a .br and a .gz copy beside each written text file of a kilobyte or more, and none beside others', () => {
    const output = path.join(directory, 'build');
    mkdirSync(path.join(output, 'assets'), { recursive: true });
    const written = { 'assets/big-1.js': script, 'assets/big-2.css': script, 'assets/small-3.js': 'export {}' };
    for (const [name, text] of Object.entries(written)) writeFileSync(path.join(output, name), text);
    writeFileSync(path.join(output, 'assets/logo-4.png'), new Uint8Array(4096));
    // The bundle's code is not what is read: Vite may still have rewritten it after generateBundle.
    const bundle = Object.fromEntries(
      [...Object.keys(written), 'assets/logo-4.png'].map((name) => [name, { fileName: name, code: 'stale' }]),
    );
    const plugin = precompress();
    const write = plugin.writeBundle as unknown as (this: unknown, options: unknown, bundle: unknown) => void;
    write.call({}, { dir: output }, bundle);
    expect(readdirSync(path.join(output, 'assets')).sort()).toEqual([
      'big-1.js',
      'big-1.js.br',
      'big-1.js.gz',
      'big-2.css',
      'big-2.css.br',
      'big-2.css.gz',
      'logo-4.png',
      'small-3.js',
    ]);
    expect(brotliDecompressSync(readFileSync(path.join(output, 'assets/big-1.js.br'))).toString()).toBe(script);
    expect(gunzipSync(readFileSync(path.join(output, 'assets/big-2.css.gz'))).toString()).toBe(script);
  });
});
