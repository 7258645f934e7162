/**
 * One colour per model in every overview chart. ECharts colours series by their order, so a model took
 * the first colour in one chart and the second in the next (spend ranks models differently from
 * calls). Here a model's colour comes from its name: a hash picks its place in the palette, and models
 * whose places collide take the next free one, in name order, so that no two models of an overview
 * share a colour and a model keeps its colour when others come and go (unless it had collided).
 */
import { OTHER, REFUSED } from './options.ts';

/** Tableau 10 without its grey: distinct on light and dark backgrounds. */
export const PALETTE = [
  '#4e79a7',
  '#f28e2b',
  '#59a14f',
  '#e15759',
  '#76b7b2',
  '#edc948',
  '#b07aa1',
  '#ff9da7',
  '#9c755f',
] as const;
/** The groups that are not a model are grey: "Other" lighter, "Refused before routing" darker. */
export const GROUP_COLORS: Record<string, string> = { [OTHER]: '#a0a7b4', [REFUSED]: '#5d6878' };

function hash(text: string): number {
  // FNV-1a, 32 bits.
  let value = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    value ^= text.charCodeAt(index);
    value = Math.imul(value, 0x01000193) >>> 0;
  }
  return value;
}

/** The colour of each model among `models` (every model of the overview), and of the grey groups. */
export function modelColors(models: readonly string[]): (group: string) => string {
  const colors = new Map<string, string>();
  const taken = new Set<number>();
  for (const model of [...new Set(models)].sort()) {
    if (model in GROUP_COLORS) continue;
    let place = hash(model) % PALETTE.length;
    // More models than colours: the rest share, by their own hash.
    if (taken.size < PALETTE.length) while (taken.has(place)) place = (place + 1) % PALETTE.length;
    taken.add(place);
    colors.set(model, PALETTE[place]!);
  }
  return (group) => GROUP_COLORS[group] ?? colors.get(group) ?? PALETTE[hash(group) % PALETTE.length]!;
}
