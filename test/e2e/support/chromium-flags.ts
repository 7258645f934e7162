/**
 * @module test/e2e/support/chromium-flags
 * How Debian's Chromium runs headless on these machines (no sandbox, GPU or QUIC, nothing fetched in
 * the background): the browser suite and the bench's chart snapshots start it the same way.
 */
export const HEADLESS_CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
