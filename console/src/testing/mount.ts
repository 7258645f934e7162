/** Mounts a console component as the app does: with Pinia, i18n (English) and a memory-history router. */
import { mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import type { Component } from 'vue';
import { createMemoryHistory } from 'vue-router';
import { i18n, setLocale } from '../locales/index.ts';
import { createAppRouter } from '../router.ts';
import { useAuthStore } from '../stores/auth.ts';

export async function mountPage(
  component: Component,
  { path = '/', user = null as null | { role: 'user' | 'admin' } } = {},
) {
  const pinia = createPinia();
  setActivePinia(pinia);
  setLocale('en');
  const auth = useAuthStore();
  if (user) auth.user = { id: 'u1', email: 'ada@example.com', name: 'ada', role: user.role };
  auth.ready = true;
  const router = createAppRouter(pinia, createMemoryHistory());
  await router.push(path);
  await router.isReady();
  const wrapper = mount(component, { global: { plugins: [pinia, i18n, router] }, attachTo: document.body });
  return { wrapper, router, pinia };
}

/** Lets pending promises and Vue's render queue settle. */
export async function settle(): Promise<void> {
  for (let round = 0; round < 5; round++) await new Promise((resolve) => setTimeout(resolve, 0));
}
