/**
 * English and Simplified Chinese. The first visit follows the browser's language; a choice made in
 * the console is remembered in localStorage and wins from then on.
 */
import { createI18n } from 'vue-i18n';
import { en } from './en.ts';
import { zhCN } from './zh-cn.ts';

export const LOCALES = [
  { code: 'en', label: 'English' },
  { code: 'zh-CN', label: '简体中文' },
] as const;
export type LocaleCode = (typeof LOCALES)[number]['code'];

export const LOCALE_STORAGE_KEY = 'console.locale';

export function detectLocale(stored: string | null, languages: readonly string[]): LocaleCode {
  if (stored === 'en' || stored === 'zh-CN') return stored;
  for (const language of languages) {
    const lower = language.toLowerCase();
    if (lower.startsWith('zh')) return 'zh-CN';
    if (lower.startsWith('en')) return 'en';
  }
  return 'en';
}

function storedLocale(): string | null {
  try {
    return globalThis.localStorage?.getItem(LOCALE_STORAGE_KEY) ?? null;
  } catch {
    return null;
  }
}

const initial = detectLocale(
  storedLocale(),
  globalThis.navigator?.languages ?? [globalThis.navigator?.language ?? 'en'],
);

export const i18n = createI18n({
  legacy: false,
  locale: initial,
  fallbackLocale: 'en',
  messages: { en, 'zh-CN': zhCN },
});

export function currentLocale(): LocaleCode {
  return i18n.global.locale.value as LocaleCode;
}

export function setLocale(locale: LocaleCode): void {
  i18n.global.locale.value = locale;
  try {
    globalThis.localStorage?.setItem(LOCALE_STORAGE_KEY, locale);
  } catch {
    // Private windows may refuse storage: the choice then lasts for this visit only.
  }
  if (globalThis.document) document.documentElement.lang = locale;
}
