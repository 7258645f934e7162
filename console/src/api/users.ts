/** Admin: accounts. */
import type {
  AdminUserView,
  CreateUserRequest,
  ListOf,
  TemporaryPassword,
  UpdateUserRequest,
} from '@contracts/console-api.ts';
import { api } from './client.ts';

export const listUsersApi = () => api.get<ListOf<AdminUserView>>('/users');
export const updateUserApi = (id: string, input: UpdateUserRequest) =>
  api.patch<AdminUserView>(`/users/${encodeURIComponent(id)}`, input);
export const createUserApi = (input: CreateUserRequest) => api.post<TemporaryPassword>('/users', input);
export const resetPasswordApi = (id: string) =>
  api.post<TemporaryPassword>(`/users/${encodeURIComponent(id)}/password-reset`, {});
