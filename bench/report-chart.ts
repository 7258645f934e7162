/**
 * @module bench/report-chart
 * The report's bar chart: drawn as SVG, rendered to PNG with headless Chromium when there is one.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HEADLESS_CHROMIUM_FLAGS } from '../test/e2e/support/chromium-flags.ts';
import { WORK } from './processes.ts';
import type { BenchResults, TargetResult } from './report.ts';
import { added, measured } from './report-figures.ts';

const COLORS: Record<TargetResult['role'], string> = {
  upstream: '#9aa5b1',
  ceiling: '#52606d',
  gateway: '#2f80ed',
  peer: '#f2994a',
};

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Three horizontal bar panels: throughput, added p99 at c=1, memory with many streams. */
export function chartSvg(bench: BenchResults): string {
  const rows = measured(bench, 'openai');
  const panels: Array<{ title: string; values: Array<[TargetResult, number]>; unit: string; digits: number }> = [
    {
      title: `Requests per second at c=${bench.plan.concurrency} (higher is better)`,
      values: rows.map(([target, result]) => [target, result.throughput.rps]),
      unit: 'req/s',
      digits: 0,
    },
    {
      title: 'Added latency p99 at c=1, ms (lower is better)',
      values: rows
        .filter(([target]) => target.id !== 'upstream')
        .map(([target, result]) => [target, added(bench, result, 'openai').p99]),
      unit: 'ms',
      digits: 2,
    },
    {
      title: `Peak RSS with ${bench.plan.holdStreams.toLocaleString('en')} concurrent streams, MB (lower is better)`,
      values: rows.filter(([, result]) => result.hold).map(([target, result]) => [target, result.hold!.peakRss / 1e6]),
      unit: 'MB',
      digits: 0,
    },
  ];
  const width = 960;
  const labelWidth = 170;
  const barHeight = 22;
  const gap = 6;
  let y = 50;
  const parts: string[] = [
    `<text x="20" y="30" font-size="18" font-weight="bold">LLM gateway benchmark — ${escapeXml(`${os.cpus().length} cores, ${bench.startedAt.slice(0, 10)}, OpenAI format`)}</text>`,
  ];
  for (const panel of panels) {
    parts.push(`<text x="20" y="${y + 16}" font-size="14" font-weight="bold">${escapeXml(panel.title)}</text>`);
    y += 26;
    const max = Math.max(1e-9, ...panel.values.map(([, value]) => (Number.isFinite(value) ? Math.abs(value) : 0)));
    for (const [target, value] of panel.values) {
      const length = Number.isFinite(value) ? Math.max(1, ((width - labelWidth - 140) * Math.abs(value)) / max) : 0;
      parts.push(
        `<text x="${labelWidth - 8}" y="${y + 16}" font-size="13" text-anchor="end">${escapeXml(target.label)}</text>`,
        `<rect x="${labelWidth}" y="${y}" width="${length.toFixed(1)}" height="${barHeight}" fill="${COLORS[target.role]}"/>`,
        `<text x="${labelWidth + length + 6}" y="${y + 16}" font-size="13">${Number.isFinite(value) ? `${value.toLocaleString('en', { maximumFractionDigits: panel.digits, minimumFractionDigits: panel.digits })} ${panel.unit}` : '–'}</text>`,
      );
      y += barHeight + gap;
    }
    y += 18;
  }
  const height = y + 10;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="DejaVu Sans, Arial, sans-serif">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    ...parts,
    '</svg>',
  ].join('\n');
}

function findChromium(): string | null {
  for (const candidate of ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome']) {
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

/** Renders an SVG file to PNG with headless Chromium; false when there is no Chromium. */
export function renderPng(svg: string, pngFile: string): boolean {
  const chromium = findChromium();
  if (!chromium) return false;
  const [, width, height] = /width="(\d+)" height="(\d+)"/.exec(svg) ?? [];
  const page = path.join(WORK, 'tmp', 'chart.html');
  const profile = path.join(WORK, 'tmp', 'chromium-profile');
  mkdirSync(path.dirname(page), { recursive: true });
  writeFileSync(page, `<!doctype html><html><body style="margin:0">${svg}</body></html>`);
  try {
    execFileSync(
      chromium,
      [
        '--headless',
        ...HEADLESS_CHROMIUM_FLAGS,
        '--hide-scrollbars',
        `--user-data-dir=${profile}`,
        `--window-size=${width},${height}`,
        `--screenshot=${pngFile}`,
        `file://${page}`,
      ],
      { stdio: 'pipe', timeout: 60_000 },
    );
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
  return existsSync(pngFile);
}
