/**
 * Light or dark: the system's setting unless the user picked one, remembered in this browser. The
 * choice resolves to `data-theme="light" | "dark"` on the root element, which the colour tokens
 * (styles/tokens.css) key on; with `system`, a change of the system setting applies at once.
 */
export const THEMES = ['system', 'light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];
export const THEME_STORAGE_KEY = 'console.theme';

const darkQuery = () => globalThis.matchMedia?.('(prefers-color-scheme: dark)');
let chosen: Theme = 'system';

export function storedTheme(): Theme {
  try {
    const stored = globalThis.localStorage?.getItem(THEME_STORAGE_KEY);
    return THEMES.includes(stored as Theme) ? (stored as Theme) : 'system';
  } catch {
    return 'system';
  }
}

export function resolvedTheme(theme: Theme, systemDark: boolean): 'light' | 'dark' {
  return theme === 'system' ? (systemDark ? 'dark' : 'light') : theme;
}

/** Sent on the window when the theme in force changes: charts re-create themselves with it. */
export const THEME_CHANGE_EVENT = 'console-theme-change';

function paint(): void {
  if (!globalThis.document) return;
  document.documentElement.dataset['theme'] = resolvedTheme(chosen, darkQuery()?.matches ?? false);
  globalThis.dispatchEvent?.(new Event(THEME_CHANGE_EVENT));
}

export function setTheme(theme: Theme): void {
  chosen = theme;
  try {
    globalThis.localStorage?.setItem(THEME_STORAGE_KEY, theme);
  } catch {
    // Private windows may refuse storage: the choice then lasts for this visit only.
  }
  paint();
}

export function currentTheme(): Theme {
  return chosen;
}

/** At start: the stored choice, and the system's changes followed while it is `system`. */
export function initTheme(): void {
  chosen = storedTheme();
  paint();
  darkQuery()?.addEventListener?.('change', paint);
}
