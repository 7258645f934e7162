/**
 * @module bench/profile-source-maps
 * The gateway runs as the esbuild bundle in dist/, so a profile names bundle chunks and their lines.
 * This maps every call frame in a bundle file back to the TypeScript source and line through the
 * bundle's own source maps (node:module's SourceMap), so the summaries and the flame graph name
 * `gateway/relay/relay-handler.ts:120`, not `dist/chunks/chunk-X.js:4704`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

interface CallFrame {
  url: string;
  lineNumber: number;
  columnNumber?: number;
}

const DIST = `${path.sep}dist${path.sep}`;

export function readProfileWithSources<Profile extends { nodes: Array<{ callFrame: CallFrame }> }>(
  file: string,
): Profile {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const maps = new Map<string, SourceMap | null>();
  const mapOf = (url: string) => {
    if (!maps.has(url)) {
      const mapFile = `${fileURLToPath(url)}.map`;
      maps.set(url, existsSync(mapFile) ? new SourceMap(JSON.parse(readFileSync(mapFile, 'utf8'))) : null);
    }
    return maps.get(url)!;
  };
  for (const { callFrame } of profile.nodes) {
    if (!callFrame.url.startsWith('file://') || !fileURLToPath(callFrame.url).includes(DIST)) continue;
    const entry = mapOf(callFrame.url)?.findEntry(callFrame.lineNumber, callFrame.columnNumber ?? 0);
    if (!entry || !('originalSource' in entry)) continue;
    const bundleDirectory = path.dirname(fileURLToPath(callFrame.url));
    const source = entry.originalSource.startsWith('file://')
      ? fileURLToPath(entry.originalSource)
      : path.resolve(bundleDirectory, entry.originalSource);
    callFrame.url = pathToFileURL(source).href;
    callFrame.lineNumber = entry.originalLine;
  }
  return profile;
}
