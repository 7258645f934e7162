/**
 * Who is signed in. The session itself is an httpOnly cookie; this store mirrors `GET /api/me` and
 * remembers when the server ended the session, so the sign-in page can say why it is shown.
 */

import type { ChangePasswordRequest, LoginRequest, RegisterRequest, UserView } from '@contracts/console-api.ts';
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import { changePasswordApi, getMeApi, loginApi, logoutApi, registerApi } from '../api/auth.ts';
import { ApiRequestError } from '../api/client.ts';
import { useChannelsStore } from './channels.ts';
import { useTokensStore } from './tokens.ts';
import { useUsageStore } from './usage.ts';
import { useUsageLogStore } from './usage-log.ts';
import { useUsersStore } from './users.ts';

export const useAuthStore = defineStore('auth', () => {
  const user = ref<UserView | null>(null);
  /** true once the first `GET /api/me` has answered */
  const ready = ref(false);
  const loading = ref(false);
  const sessionExpired = ref(false);
  const isAdmin = computed(() => user.value?.role === 'admin');

  async function fetchMe(): Promise<void> {
    try {
      user.value = await getMeApi();
    } catch (error) {
      if (!(error instanceof ApiRequestError) || error.status !== 401) throw error;
      user.value = null;
    } finally {
      ready.value = true;
    }
  }

  async function run(action: () => Promise<UserView>): Promise<UserView> {
    loading.value = true;
    try {
      user.value = await action();
      sessionExpired.value = false;
      return user.value;
    } finally {
      loading.value = false;
    }
  }

  const signIn = (input: LoginRequest) => run(() => loginApi(input));
  const signUp = (input: RegisterRequest) => run(() => registerApi(input));
  const changePassword = (input: ChangePasswordRequest) => run(() => changePasswordApi(input));

  /** Forgets everything the signed-in user saw, in every store. */
  function clearData(): void {
    for (const store of [useTokensStore(), useUsageStore(), useUsageLogStore(), useChannelsStore(), useUsersStore()]) {
      store.$reset();
    }
  }

  async function signOut(): Promise<void> {
    await logoutApi().catch(() => undefined);
    user.value = null;
    clearData();
  }

  /** The server said the session is gone; returns whether someone was signed in until now. */
  function expireSession(): boolean {
    const wasSignedIn = user.value !== null;
    if (wasSignedIn) sessionExpired.value = true;
    user.value = null;
    clearData();
    return wasSignedIn;
  }

  function $reset(): void {
    user.value = null;
    ready.value = false;
    loading.value = false;
    sessionExpired.value = false;
  }

  return {
    user,
    ready,
    loading,
    sessionExpired,
    isAdmin,
    fetchMe,
    signIn,
    signUp,
    signOut,
    changePassword,
    expireSession,
    $reset,
  };
});
