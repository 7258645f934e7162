/** Admin: accounts. */
import type { AdminUserView, ListOf, UpdateUserRequest } from '@contracts/console-api.ts';
import { api } from './client.ts';

export const listUsersApi = () => api.get<ListOf<AdminUserView>>('/users');
export const updateUserApi = (id: string, input: UpdateUserRequest) =>
  api.patch<AdminUserView>(`/users/${encodeURIComponent(id)}`, input);
