/**
 * @module bench/profile
 * Reads a V8 `.cpuprofile` (node --cpu-prof) and sums it up: self time by function, self time by
 * module or package, and inclusive time of the repository's own functions. Run on its own:
 * `npx tsx bench/profile.ts .bench/profiles/gateway.cpuprofile [top] [skip-ms]`.
 */
import { isMain, ROOT } from './processes.ts';
import { readProfileWithSources } from './profile-source-maps.ts';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  startTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileRow {
  name: string;
  where: string;
  ms: number;
  percent: number;
}

export interface ProfileSummary {
  totalMs: number;
  /** samples that were not idle */
  busyMs: number;
  topSelf: ProfileRow[];
  byModule: ProfileRow[];
  ownInclusive: ProfileRow[];
}

function shortUrl(url: string): string {
  if (!url) return '';
  const path = url.replace(/^file:\/\//, '');
  const modules = path.lastIndexOf('/node_modules/');
  if (modules >= 0) return path.slice(modules + '/node_modules/'.length);
  return path.startsWith(ROOT) ? path.slice(ROOT.length + 1) : path;
}

/** The package (or repo folder, or `node:` built-in) a frame belongs to. */
function moduleOf(url: string, name: string): string {
  if (!url) return name.startsWith('(') ? name : '(native)';
  if (url.startsWith('node:')) return url.split('/')[0]!.replace(/^node:internal.*/, 'node:internal');
  const short = shortUrl(url);
  if (url.includes('/node_modules/')) {
    const parts = short.split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  const parts = short.split('/');
  return parts.length > 1 ? `${parts.slice(0, -1).join('/')}/` : short;
}

/** Sums up a profile, leaving out its first `skipMs` (process start and warm-up). */
export function summariseProfile(file: string, top = 25, skipMs = 0): ProfileSummary {
  const profile = readProfileWithSources<CpuProfile>(file);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfMs = new Map<number, number>();
  let totalMs = 0;
  let elapsedMs = 0;
  for (let index = 0; index < profile.samples.length; index++) {
    const ms = (profile.timeDeltas[index] ?? 0) / 1000;
    elapsedMs += ms;
    if (elapsedMs < skipMs) continue;
    totalMs += ms;
    const id = profile.samples[index]!;
    selfMs.set(id, (selfMs.get(id) ?? 0) + ms);
  }
  const idleMs = profile.nodes
    .filter((node) => node.callFrame.functionName === '(idle)')
    .reduce((sum, node) => sum + (selfMs.get(node.id) ?? 0), 0);
  const busyMs = totalMs - idleMs;
  const percent = (ms: number) => (busyMs > 0 ? (100 * ms) / busyMs : 0);

  const functions = new Map<string, ProfileRow>();
  const modules = new Map<string, number>();
  for (const node of profile.nodes) {
    const ms = selfMs.get(node.id) ?? 0;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)' || ms === 0) continue;
    const name = functionName || '(anonymous)';
    const where = url ? `${shortUrl(url)}:${lineNumber + 1}` : '';
    const key = `${name}\u0000${where}`;
    const row = functions.get(key) ?? { name, where, ms: 0, percent: 0 };
    row.ms += ms;
    functions.set(key, row);
    const module = moduleOf(url, name);
    modules.set(module, (modules.get(module) ?? 0) + ms);
  }

  // Inclusive time of this repository's functions: each sample counts once per distinct function on its stack.
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const own = (node: ProfileNode) =>
    node.callFrame.url.includes(ROOT) && !node.callFrame.url.includes('/node_modules/');
  const inclusive = new Map<string, ProfileRow>();
  for (const [id, ms] of selfMs) {
    if (byId.get(id)?.callFrame.functionName === '(idle)') continue;
    const seen = new Set<string>();
    for (let current: number | undefined = id; current !== undefined; current = parent.get(current)) {
      const node = byId.get(current)!;
      if (!own(node)) continue;
      const name = node.callFrame.functionName || '(anonymous)';
      const where = `${shortUrl(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`;
      const key = `${name}\u0000${where}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const row = inclusive.get(key) ?? { name, where, ms: 0, percent: 0 };
      row.ms += ms;
      inclusive.set(key, row);
    }
  }

  const finish = (rows: Iterable<ProfileRow>) =>
    [...rows]
      .map((row) => ({ ...row, percent: percent(row.ms) }))
      .sort((left, right) => right.ms - left.ms)
      .slice(0, top);
  return {
    totalMs,
    busyMs,
    topSelf: finish(functions.values()),
    byModule: finish([...modules].map(([name, ms]) => ({ name, where: '', ms, percent: 0 }))),
    ownInclusive: finish(inclusive.values()),
  };
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * A flame graph of the profile (after `skipMs`) as SVG: one box per call path, as wide as its inclusive
 * time; paths under 0.2% are left out. Hover a box for its function, place and share.
 */
export function flameGraphSvg(file: string, skipMs = 0, title = 'CPU flame graph'): string {
  const profile = readProfileWithSources<CpuProfile>(file);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<number, number>();
  let elapsedMs = 0;
  for (let index = 0; index < profile.samples.length; index++) {
    const ms = (profile.timeDeltas[index] ?? 0) / 1000;
    elapsedMs += ms;
    if (elapsedMs < skipMs) continue;
    const id = profile.samples[index]!;
    if (byId.get(id)?.callFrame.functionName === '(idle)') continue;
    self.set(id, (self.get(id) ?? 0) + ms);
  }
  const total = new Map<number, number>();
  const sum = (id: number): number => {
    const node = byId.get(id)!;
    let value = self.get(id) ?? 0;
    for (const child of node.children ?? []) value += sum(child);
    total.set(id, value);
    return value;
  };
  const root = profile.nodes[0]!;
  const rootMs = sum(root.id);
  const width = 1400;
  const rowHeight = 17;
  const boxes: string[] = [];
  let maxDepth = 0;
  const draw = (id: number, x: number, depth: number) => {
    const ms = total.get(id) ?? 0;
    const boxWidth = (width * ms) / rootMs;
    if (ms / rootMs < 0.002) return;
    maxDepth = Math.max(maxDepth, depth);
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const name = functionName || '(anonymous)';
    const where = url ? ` ${shortUrl(url)}:${lineNumber + 1}` : '';
    const own = url.includes(ROOT) && !url.includes('/node_modules/');
    const hue = own ? 210 : url.includes('/node_modules/') ? 30 : url.startsWith('node:') ? 120 : 0;
    const label = `${name}${where} — ${((100 * ms) / rootMs).toFixed(1)}%`;
    boxes.push(
      `<g><title>${escapeXml(label)}</title><rect x="${x.toFixed(1)}" y="DEPTH${depth}" width="${boxWidth.toFixed(1)}" height="${rowHeight - 1}" fill="hsl(${hue},60%,${60 + ((name.length * 7) % 20)}%)"/>` +
        (boxWidth > 50
          ? `<text x="${(x + 3).toFixed(1)}" y="DEPTH${depth}T" font-size="11">${escapeXml(name.slice(0, Math.floor(boxWidth / 7)))}</text>`
          : '') +
        '</g>',
    );
    let childX = x;
    for (const child of byId.get(id)!.children ?? []) {
      draw(child, childX, depth + 1);
      childX += (width * (total.get(child) ?? 0)) / rootMs;
    }
  };
  draw(root.id, 0, 0);
  const height = (maxDepth + 1) * rowHeight + 40;
  // Flame graphs grow upwards: the root at the bottom.
  const body = boxes
    .join('\n')
    .replace(/DEPTH(\d+)T/g, (_, depth) => String(height - (Number(depth) + 1) * rowHeight + 12))
    .replace(/DEPTH(\d+)/g, (_, depth) => String(height - (Number(depth) + 1) * rowHeight));
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="DejaVu Sans Mono, monospace">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="6" y="18" font-size="14">${escapeXml(`${title} — ${(rootMs / 1000).toFixed(1)} s busy; blue: this repository, orange: packages, green: Node`)}</text>`,
    body,
    '</svg>',
  ].join('\n');
}

export function profileText(summary: ProfileSummary): string {
  const table = (title: string, rows: ProfileRow[]) =>
    [
      `${title}`,
      ...rows.map(
        (row) =>
          `  ${row.percent.toFixed(1).padStart(5)}%  ${row.ms.toFixed(0).padStart(6)} ms  ${row.name}  ${row.where}`,
      ),
    ].join('\n');
  return [
    `profile: ${(summary.totalMs / 1000).toFixed(1)} s sampled, ${(summary.busyMs / 1000).toFixed(1)} s busy (percentages of busy time)`,
    table('self time by function:', summary.topSelf),
    table('self time by module:', summary.byModule),
    table('inclusive time of this repository’s functions:', summary.ownInclusive),
  ].join('\n');
}

if (isMain(import.meta.url)) {
  const file = process.argv[2];
  if (!file) throw new Error('usage: profile.ts <file.cpuprofile>');
  console.log(profileText(summariseProfile(file, Number(process.argv[3] ?? 25), Number(process.argv[4] ?? 0))));
}
