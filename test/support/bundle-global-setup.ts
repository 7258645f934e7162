/**
 * @module test/support/bundle-global-setup
 * vitest globalSetup of the projects whose tests start the gateway or the projector as processes:
 * the server bundle is built (or found up to date) once, before any of their files runs.
 */
import { buildServerBundle } from './server-bundle.ts';

export default async function setup(): Promise<void> {
  await buildServerBundle();
}
