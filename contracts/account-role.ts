/**
 * @module contracts/account-role
 * What an account may do, written once for the account events and the console API.
 */
import { z } from 'zod';

export const roleSchema = z.enum(['user', 'admin']);

export type Role = z.infer<typeof roleSchema>;
