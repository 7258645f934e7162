/**
 * The tool-list cache: kept by the list's content, not its object; the conversion's warnings given
 * again on a hit; a refusal not kept; and bounded, by entries and by characters, oldest use first out.
 * The Gemini writer converts an agent's repeated tool list once.
 */
import { describe, expect, it } from 'vitest';
import type { NeutralRequest, NeutralTool } from '../../contracts/neutral/request.ts';
import { writeGeminiRequest } from './gemini/write-request.ts';
import { cachedByToolList } from './tool-list-cache.ts';

const tool = (name: string, description = 'reads a file'): NeutralTool => ({
  name,
  description,
  parameters: { type: 'object', properties: { path: { type: 'string' } } },
});

function counting(limits?: { entries: number; characters: number }) {
  const converted: string[] = [];
  const convert = cachedByToolList((tools: NeutralTool[], warnings: string[]) => {
    converted.push(tools.map((each) => each.name).join(','));
    if (tools.some((each) => each.name === 'bad')) throw new Error('refused');
    warnings.push(`converted ${tools.length}`);
    return tools.map((each) => ({ name: each.name.toUpperCase() }));
  }, limits);
  return { convert, converted };
}

describe('cachedByToolList', () => {
  it('converts a tool list once however many requests send it, as equal content in new objects', () => {
    const { convert, converted } = counting();
    const first = convert([tool('read'), tool('write')], []);
    const warnings: string[] = [];
    expect(convert([tool('read'), tool('write')], warnings)).toBe(first);
    expect(warnings).toEqual(['converted 2']);
    expect(converted).toEqual(['read,write']);
  });

  it('converts a list that differs anywhere, a description included', () => {
    const { convert, converted } = counting();
    convert([tool('read')], []);
    convert([tool('read', 'reads a file, all of it')], []);
    expect(converted).toHaveLength(2);
  });

  it('keeps no refusal', () => {
    const { convert, converted } = counting();
    expect(() => convert([tool('bad')], [])).toThrow('refused');
    expect(() => convert([tool('bad')], [])).toThrow('refused');
    expect(converted).toHaveLength(2);
  });

  it('keeps at most its entries, the least recently used going first', () => {
    const { convert, converted } = counting({ entries: 2, characters: 1_000_000 });
    convert([tool('a')], []);
    convert([tool('b')], []);
    convert([tool('a')], []);
    convert([tool('c')], []); // evicts b, the least recently used
    convert([tool('a')], []);
    convert([tool('b')], []);
    expect(converted).toEqual(['a', 'b', 'c', 'b']);
  });

  it('keeps at most its characters of tool lists', () => {
    const size = JSON.stringify([tool('a')]).length;
    const { convert, converted } = counting({ entries: 100, characters: size * 2 });
    for (const name of ['a', 'b', 'c', 'a']) convert([tool(name)], []);
    expect(converted).toEqual(['a', 'b', 'c', 'a']);
  });
});

describe('the Gemini request writer', () => {
  it("converts an agent's repeated tool list once, and writes the same declarations each turn", () => {
    const request = (text: string) =>
      ({
        model: 'gemini-2.5-flash',
        system: [],
        turns: [{ role: 'user', parts: [{ type: 'text', text }] }],
        tools: [tool('read_file_once')],
        toolChoice: 'auto',
        sampling: {},
        stream: false,
      }) as NeutralRequest;
    const first = writeGeminiRequest(request('first turn')).body['tools'] as Array<{ functionDeclarations: unknown }>;
    const second = writeGeminiRequest(request('second turn')).body['tools'] as Array<{ functionDeclarations: unknown }>;
    expect(second[0]!.functionDeclarations).toBe(first[0]!.functionDeclarations);
    expect(first[0]!.functionDeclarations).toEqual([
      { name: 'read_file_once', description: 'reads a file', parameters: expect.objectContaining({ type: 'OBJECT' }) },
    ]);
  });
});
