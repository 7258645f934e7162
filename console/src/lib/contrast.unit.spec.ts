/**
 * The status badges' text against their background, in both themes, reaches WCAG AA for small text
 * (4.5:1); the green one was 4.48:1.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const css = readFileSync(new URL('../styles/tokens.css', import.meta.url), 'utf8');

function themeColors(selector: string): Record<string, string> {
  const block = css.slice(css.indexOf(`${selector} {`));
  const body = block.slice(0, block.indexOf('}'));
  return Object.fromEntries(
    [...body.matchAll(/--([\w-]+):\s*(#[0-9a-f]{6})/gi)].map((match) => [match[1]!, match[2]!]),
  );
}

function luminance(hex: string): number {
  const channels = [1, 3, 5].map((start) => Number.parseInt(hex.slice(start, start + 2), 16) / 255);
  const [r, g, b] = channels.map((value) => (value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

const contrast = (one: string, other: string) => {
  const [light, dark] = [luminance(one), luminance(other)].sort((left, right) => right - left);
  return (light! + 0.05) / (dark! + 0.05);
};

describe('badge contrast', () => {
  const light = themeColors(':root');
  const dark = { ...light, ...themeColors(':root[data-theme="dark"]') };
  for (const [theme, colors] of [
    ['light', light],
    ['dark', dark],
  ] as const) {
    it(`reaches 4.5:1 for every tone in the ${theme} theme`, () => {
      for (const tone of ['ok', 'warn', 'bad']) {
        expect(contrast(colors[tone]!, colors[`${tone}-soft`]!), tone).toBeGreaterThanOrEqual(4.5);
      }
      expect(contrast(colors['muted']!, colors['surface-2']!), 'muted').toBeGreaterThanOrEqual(4.5);
    });
  }
});
