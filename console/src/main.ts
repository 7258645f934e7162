/** Boots the console: Pinia, i18n, the router, and what an expired session does. */
import { createPinia } from 'pinia';
import { createApp } from 'vue';
import App from './App.vue';
import { setSessionExpiredHandler } from './api/client.ts';
import { initTheme } from './lib/theme.ts';
import { currentLocale, i18n } from './locales/index.ts';
import { createAppRouter } from './router.ts';
import { useAuthStore } from './stores/auth.ts';
import './styles/tokens.css';
import './styles/shell.css';
import './styles/controls.css';
import './styles/feedback.css';
import './styles/overview.css';
import './styles/responsive.css';

const pinia = createPinia();
const router = createAppRouter(pinia);
const app = createApp(App).use(pinia).use(i18n).use(router);

setSessionExpiredHandler(() => {
  const auth = useAuthStore(pinia);
  const wasSignedIn = auth.expireSession();
  const current = router.currentRoute.value;
  if (wasSignedIn && !current.meta.public) {
    void router.push({ path: '/sign-in', query: { expired: '1', redirect: current.fullPath } });
  }
});

document.documentElement.lang = currentLocale();
initTheme();
void router.isReady().then(() => app.mount('#app'));
