// @vitest-environment happy-dom
/** The theme switch: a chosen theme holds over the system's, is remembered, and `system` follows the system. */
import { mount } from '@vue/test-utils';
import { afterEach, expect, it, vi } from 'vitest';
import ThemeSwitcher from '../components/ThemeSwitcher.vue';
import { i18n } from '../locales/index.ts';
import { initTheme, resolvedTheme, THEME_STORAGE_KEY } from './theme.ts';

afterEach(() => {
  vi.unstubAllGlobals();
  localStorage.clear();
});

it('resolves the system choice by the system setting, and a chosen theme whatever it is', () => {
  expect(resolvedTheme('system', true)).toBe('dark');
  expect(resolvedTheme('system', false)).toBe('light');
  expect(resolvedTheme('light', true)).toBe('light');
  expect(resolvedTheme('dark', false)).toBe('dark');
});

it('paints the chosen theme on the page, remembers it, and follows a dark system when set back to system', async () => {
  vi.stubGlobal('matchMedia', () => ({ matches: true, addEventListener: () => undefined }));
  localStorage.setItem(THEME_STORAGE_KEY, 'light');
  initTheme();
  expect(document.documentElement.dataset['theme']).toBe('light');
  const wrapper = mount(ThemeSwitcher, { global: { plugins: [i18n] } });
  const button = wrapper.find('[data-test=theme]');
  expect(button.attributes('aria-label')).toBe('Colour theme: Light');
  await button.trigger('click');
  expect(document.documentElement.dataset['theme']).toBe('dark');
  expect(localStorage.getItem(THEME_STORAGE_KEY)).toBe('dark');
  await button.trigger('click');
  expect(button.attributes('aria-label')).toBe('Colour theme: System theme');
  expect(document.documentElement.dataset['theme']).toBe('dark');
  expect(localStorage.getItem(THEME_STORAGE_KEY)).toBe('system');
  await button.trigger('click');
  expect(document.documentElement.dataset['theme']).toBe('light');
  wrapper.unmount();
});
