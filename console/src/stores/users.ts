/** Admin: the accounts, their roles and whether they are disabled. */

import type { AdminUserView, CreateUserRequest, TemporaryPassword, UpdateUserRequest } from '@contracts/console-api.ts';
import { defineStore } from 'pinia';
import { ref } from 'vue';
import { createUserApi, listUsersApi, updateUserApi } from '../api/users.ts';

export const useUsersStore = defineStore('users', () => {
  const users = ref<AdminUserView[]>([]);
  const loading = ref(false);
  const loaded = ref(false);
  const error = ref<Error | null>(null);

  async function fetchUsers(): Promise<void> {
    loading.value = true;
    error.value = null;
    try {
      users.value = (await listUsersApi()).items;
      loaded.value = true;
    } catch (caught) {
      error.value = caught as Error;
    } finally {
      loading.value = false;
    }
  }

  /** Opens an account; the answer holds its temporary password, to be shown once. */
  async function createUser(input: CreateUserRequest): Promise<TemporaryPassword> {
    const created = await createUserApi(input);
    users.value = [...users.value, created.user];
    return created;
  }

  async function updateUser(id: string, input: UpdateUserRequest): Promise<AdminUserView> {
    const updated = await updateUserApi(id, input);
    users.value = users.value.map((user) => (user.id === id ? updated : user));
    return updated;
  }

  function $reset(): void {
    users.value = [];
    loading.value = false;
    loaded.value = false;
    error.value = null;
  }

  return { users, loading, loaded, error, fetchUsers, createUser, updateUser, $reset };
});
