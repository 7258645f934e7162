/** Admin: the accounts, their roles and whether they are disabled. */

import type { AdminUserView, CreateUserRequest, TemporaryPassword, UpdateUserRequest } from '@contracts/console-api.ts';
import { defineStore } from 'pinia';
import { createUserApi, listUsersApi, updateUserApi } from '../api/users.ts';
import { useListLoader } from '../composables/use-list-loader.ts';

export const useUsersStore = defineStore('users', () => {
  const list = useListLoader(listUsersApi);

  /** Opens an account; the answer holds its temporary password, to be shown once. */
  async function createUser(input: CreateUserRequest): Promise<TemporaryPassword> {
    const created = await createUserApi(input);
    list.put(created.user, { atEnd: true });
    return created;
  }

  const updateUser = async (id: string, input: UpdateUserRequest): Promise<AdminUserView> =>
    list.put(await updateUserApi(id, input));

  return {
    users: list.items,
    loading: list.loading,
    loaded: list.loaded,
    error: list.error,
    fetchUsers: list.fetch,
    createUser,
    updateUser,
    $reset: list.reset,
  };
});
