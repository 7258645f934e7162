/** Sign-up, sign-in, sign-out, who am I, the password change, and which sign-in methods are on. */
import type { ChangePasswordRequest, LoginRequest, RegisterRequest, UserView } from '@contracts/console-api.ts';
import type { SignInMethods } from '@contracts/console-api-sign-in.ts';
import { api } from './client.ts';

export const registerApi = (input: RegisterRequest) => api.post<UserView>('/auth/register', input);
export const loginApi = (input: LoginRequest) => api.post<UserView>('/auth/login', input);
export const logoutApi = () => api.post<void>('/auth/logout');
export const getMeApi = () => api.get<UserView>('/me');
export const changePasswordApi = (input: ChangePasswordRequest) => api.post<UserView>('/auth/password', input);
export const getSignInMethodsApi = () => api.get<SignInMethods>('/auth/methods');
