import { describe, expect, it } from 'vitest';
import { en } from './en.ts';
import { zhCN } from './zh-cn.ts';

function leaves(messages: object, prefix = ''): Map<string, string> {
  const found = new Map<string, string>();
  for (const [key, value] of Object.entries(messages)) {
    if (typeof value === 'string') found.set(`${prefix}${key}`, value);
    else for (const [path, text] of leaves(value, `${prefix}${key}.`)) found.set(path, text);
  }
  return found;
}

describe('messages', () => {
  const english = leaves(en);
  const chinese = leaves(zhCN);

  it('has every English message in Chinese, none empty, with the same placeholders', () => {
    expect([...chinese.keys()].sort()).toEqual([...english.keys()].sort());
    for (const [path, text] of english) {
      const translated = chinese.get(path)!;
      expect(translated.trim(), path).not.toBe('');
      const placeholders = (message: string) => [...new Set(message.match(/\{\w+\}/g))].sort();
      expect(placeholders(translated), path).toEqual(placeholders(text));
    }
  });

  it('uses no characters vue-i18n would read as syntax or HTML', () => {
    for (const [path, text] of [...english, ...chinese]) expect(text, path).not.toMatch(/[<>@$]/);
  });
});
