/**
 * @module gateway/console-api/static-files
 * The built console's files. A file the build also wrote as `.br` or `.gz` (console/vite-precompress.ts)
 * is sent in the best encoding the browser accepts, as it is on disk; the chart chunk is 566 KB raw
 * and about 160 KB as brotli. Files under `assets/` carry a content hash in their names and never
 * change, so browsers keep them for a year without asking; everything else (index.html) is checked
 * at every load, so that a new release is picked up at once.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import express, { type RequestHandler, type Response } from 'express';

const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';
/** In order of preference: brotli is the smaller. */
const ENCODINGS = [
  { name: 'br', suffix: '.br' },
  { name: 'gzip', suffix: '.gz' },
] as const;

function filesUnder(directory: string, prefix = ''): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? filesUnder(path.join(directory, entry.name), `${prefix}${entry.name}/`)
      : [`${prefix}${entry.name}`],
  );
}

/** The encodings an Accept-Encoding header allows (`q=0` refuses one; `*` allows any not named). */
export function acceptedEncodings(header: string | undefined): Set<string> {
  const accepted = new Set<string>();
  const refused = new Set<string>();
  for (const part of (header ?? '').split(',')) {
    const [name = '', ...parameters] = part.trim().toLowerCase().split(';');
    const quality = parameters.map((parameter) => parameter.trim()).find((parameter) => parameter.startsWith('q='));
    (quality && Number(quality.slice(2)) === 0 ? refused : accepted).add(name.trim());
  }
  if (accepted.has('*')) for (const { name } of ENCODINGS) if (!refused.has(name)) accepted.add(name);
  for (const name of refused) accepted.delete(name);
  return accepted;
}

const cacheControlOf = (relative: string) => (relative.startsWith('assets/') ? IMMUTABLE : REVALIDATE);

function setCaching(response: Response, filePath: string, root: string): void {
  response.setHeader('cache-control', cacheControlOf(path.relative(root, filePath).split(path.sep).join('/')));
}

/**
 * Serves `root`'s files; the set of files (and of their compressed copies) is read once, at start:
 * a request names one of them or falls through, so no request path ever reaches the file system.
 */
export function consoleStaticFiles(root: string): RequestHandler {
  const files = new Set(filesUnder(root));
  const plain = express.static(root, {
    index: 'index.html',
    setHeaders: (response, filePath) => setCaching(response, filePath, root),
  });
  return (request, response, next) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return next();
    let relative: string;
    try {
      relative = decodeURIComponent(request.path).replace(/^\/+/, '') || 'index.html';
    } catch {
      return next();
    }
    const compressed = ENCODINGS.filter(({ suffix }) => files.has(relative + suffix));
    if (!files.has(relative) || compressed.length === 0) return plain(request, response, next);
    response.vary('accept-encoding');
    const accepted = acceptedEncodings(request.headers['accept-encoding']);
    const chosen = compressed.find(({ name }) => accepted.has(name));
    if (!chosen) return plain(request, response, next);
    // The type of the file itself, not of its compressed copy (send keeps a type already set).
    response.type(path.extname(relative));
    response.setHeader('content-encoding', chosen.name);
    response.setHeader('cache-control', cacheControlOf(relative));
    response.sendFile(relative + chosen.suffix, { root, dotfiles: 'deny' }, (error) => {
      if (error) next(error);
    });
  };
}
