/**
 * @module gateway/providers/tool-list-cache
 * A conversion of a request's tool list, remembered by the list's content (its JSON text): an agent
 * sends the same 20–60 tools on every turn, and a kind whose schemas need rewriting (Gemini's subset
 * of JSON Schema) would otherwise redo it each time. Bounded by entries and by the characters of the
 * keys, least recently used first out; a conversion that refuses the list (a 400) is not kept.
 *
 * A kept result is shared by every request with the same tools: the writers only read it.
 */
import { LRUCache } from 'lru-cache';
import type { NeutralTool } from '../../contracts/neutral/request.ts';

export interface ToolListLimits {
  /** tool lists kept at most */
  entries: number;
  /** characters of tool-list JSON kept at most (the converted values are about as large) */
  characters: number;
}

const DEFAULT_LIMITS: ToolListLimits = { entries: 256, characters: 8_000_000 };

export type ToolListConversion<T> = (tools: NeutralTool[], warnings: string[]) => T;

/** `convert`, remembered per tool list; the warnings it gave are given again on every hit. */
export function cachedByToolList<T>(
  convert: ToolListConversion<T>,
  limits: ToolListLimits = DEFAULT_LIMITS,
): ToolListConversion<T> {
  const kept = new LRUCache<string, { value: T; warnings: string[] }>({
    max: limits.entries,
    maxSize: limits.characters,
    sizeCalculation: (_, key) => Math.max(1, key.length),
  });
  return (tools, warnings) => {
    if (tools.length === 0) return convert(tools, warnings);
    const key = JSON.stringify(tools);
    let entry = kept.get(key);
    if (entry === undefined) {
      const own: string[] = [];
      entry = { value: convert(tools, own), warnings: own };
      kept.set(key, entry);
    }
    warnings.push(...entry.warnings);
    return entry.value;
  };
}
