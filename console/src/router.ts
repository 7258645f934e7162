/**
 * The console's pages. Signed-out visitors are sent to sign-in (with a notice when their session
 * expired), signed-in ones away from it, and admin pages are for admins only.
 */
import type { Pinia } from 'pinia';
import { watch } from 'vue';
import {
  createRouter,
  createWebHistory,
  type RouteLocationNormalizedLoaded,
  type Router,
  type RouterHistory,
} from 'vue-router';
import { i18n } from './locales/index.ts';
import { useAuthStore } from './stores/auth.ts';
import SignInView from './views/SignInView.vue';
import SignUpView from './views/SignUpView.vue';

declare module 'vue-router' {
  interface RouteMeta {
    /** reachable signed out */
    public?: boolean;
    admin?: boolean;
    /** message key of the page title, also its name in the navigation */
    title?: string;
    /** listed in the navigation with this icon (NavIcon's names), in the order of the routes */
    nav?: string;
  }
}

/** A page the navigation lists: built from the routes' meta, so a new page is one route entry. */
export interface NavItem {
  to: string;
  title: string;
  icon: string;
  admin: boolean;
}

export function navItems(router: Router): NavItem[] {
  return router.options.routes.flatMap((route) =>
    route.meta?.nav && route.meta.title
      ? [{ to: route.path, title: route.meta.title, icon: route.meta.nav, admin: route.meta.admin === true }]
      : [],
  );
}

export function createAppRouter(pinia: Pinia, history: RouterHistory = createWebHistory()): Router {
  const router = createRouter({
    history,
    routes: [
      { path: '/sign-in', component: SignInView, meta: { public: true, title: 'auth.signIn' } },
      { path: '/sign-up', component: SignUpView, meta: { public: true, title: 'auth.signUp' } },
      { path: '/', redirect: '/overview' },
      {
        path: '/overview',
        component: () => import('./views/OverviewView.vue'),
        meta: { title: 'nav.overview', nav: 'overview' },
      },
      {
        path: '/tokens',
        component: () => import('./views/TokensView.vue'),
        meta: { title: 'nav.tokens', nav: 'tokens' },
      },
      {
        path: '/models',
        component: () => import('./views/ModelsView.vue'),
        meta: { title: 'nav.models', nav: 'models' },
      },
      { path: '/logs', component: () => import('./views/UsageLogView.vue'), meta: { title: 'nav.logs', nav: 'logs' } },
      {
        path: '/sessions',
        component: () => import('./views/SessionsView.vue'),
        meta: { title: 'nav.sessions', nav: 'sessions' },
      },
      { path: '/sessions/:id', component: () => import('./views/SessionView.vue'), meta: { title: 'nav.sessions' } },
      {
        path: '/account',
        component: () => import('./views/AccountView.vue'),
        meta: { title: 'nav.account', nav: 'account' },
      },
      {
        path: '/admin/channels',
        component: () => import('./views/ChannelsView.vue'),
        meta: { admin: true, title: 'nav.channels', nav: 'channels' },
      },
      {
        path: '/admin/users',
        component: () => import('./views/UsersView.vue'),
        meta: { admin: true, title: 'nav.users', nav: 'users' },
      },
      { path: '/:path(.*)*', component: () => import('./views/NotFoundView.vue'), meta: { title: 'errors.notFound' } },
    ],
  });

  router.beforeEach(async (to) => {
    const auth = useAuthStore(pinia);
    if (!auth.ready) await auth.fetchMe().catch(() => undefined);
    if (to.meta.public) return auth.user ? { path: '/overview' } : true;
    if (!auth.user) {
      return {
        path: '/sign-in',
        query: {
          ...(to.fullPath !== '/overview' && { redirect: to.fullPath }),
          ...(auth.sessionExpired && { expired: '1' }),
        },
      };
    }
    if (to.meta.admin && !auth.isAdmin) return { path: '/overview' };
    return true;
  });

  const setTitle = (to: RouteLocationNormalizedLoaded) => {
    const title = to.meta.title ? i18n.global.t(to.meta.title) : '';
    if (typeof document !== 'undefined')
      document.title = [title, i18n.global.t('app.name')].filter(Boolean).join(' · ');
  };
  router.afterEach(setTitle);
  // A language switch retitles the tab at once, not at the next navigation.
  watch(i18n.global.locale, () => setTitle(router.currentRoute.value));

  return router;
}
