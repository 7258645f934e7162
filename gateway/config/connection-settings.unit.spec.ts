/**
 * The connection settings' defaults follow the body limit, the open-file limit and the proxy setting;
 * contradictions are refused at start with the variables' names.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultMaxConnections, openFileLimit, readConnectionSettings } from './connection-settings.ts';

const MiB = 1024 * 1024;
const direct = { bodyLimitBytes: 20 * MiB, trustProxyHops: 0 };

describe('readConnectionSettings', () => {
  it('gives a BODY_LIMIT_BYTES body at 64 KiB/s time to arrive, and never less than a minute', () => {
    expect(readConnectionSettings({}, direct, 20_000).requestTimeoutMs).toBe(320_000);
    expect(readConnectionSettings({}, { ...direct, bodyLimitBytes: 100 * MiB }, 20_000).requestTimeoutMs).toBe(
      1_600_000,
    );
    expect(readConnectionSettings({}, { ...direct, bodyLimitBytes: MiB }, 20_000).requestTimeoutMs).toBe(60_000);
  });

  it('defaults to 20 s for the headers and 65 s for an idle keep-alive socket', () => {
    const settings = readConnectionSettings({}, direct, 20_000);
    expect(settings).toMatchObject({ headersTimeoutMs: 20_000, keepAliveTimeoutMs: 65_000 });
  });

  it('caps the process at half of what the open-file limit leaves, and each address at a quarter of that', () => {
    expect(readConnectionSettings({}, direct, 20_000)).toMatchObject({
      maxConnections: 9_488,
      maxConnectionsPerAddress: 2_372,
    });
    expect(defaultMaxConnections(1_024)).toBe(384);
    expect(defaultMaxConnections(1_048_576)).toBe(20_000);
    expect(defaultMaxConnections(null)).toBe(10_000);
  });

  it('counts no address on its own behind a proxy, where every client comes from the proxy', () => {
    expect(readConnectionSettings({}, { ...direct, trustProxyHops: 1 }, 20_000).maxConnectionsPerAddress).toBe(0);
    expect(
      readConnectionSettings({ MAX_CONNECTIONS_PER_ADDRESS: '50' }, { ...direct, trustProxyHops: 1 }, 20_000)
        .maxConnectionsPerAddress,
    ).toBe(50);
  });

  it('takes every value from the environment', () => {
    const settings = readConnectionSettings(
      {
        REQUEST_TIMEOUT_MS: '1000',
        HEADERS_TIMEOUT_MS: '500',
        KEEP_ALIVE_TIMEOUT_MS: '300',
        MAX_CONNECTIONS: '40',
        MAX_CONNECTIONS_PER_ADDRESS: '5',
      },
      direct,
      20_000,
    );
    expect(settings).toEqual({
      requestTimeoutMs: 1000,
      headersTimeoutMs: 500,
      keepAliveTimeoutMs: 300,
      maxConnections: 40,
      maxConnectionsPerAddress: 5,
    });
    // The per-address default follows a configured process cap.
    expect(readConnectionSettings({ MAX_CONNECTIONS: '40' }, direct, 20_000).maxConnectionsPerAddress).toBe(10);
    // A request deadline shorter than the headers' default shortens that default with it.
    expect(readConnectionSettings({ REQUEST_TIMEOUT_MS: '5000' }, direct, 20_000).headersTimeoutMs).toBe(5000);
  });

  it('refuses headers given longer than the whole request, and a keep-alive timeout of 0', () => {
    expect(() =>
      readConnectionSettings({ REQUEST_TIMEOUT_MS: '1000', HEADERS_TIMEOUT_MS: '2000' }, direct, 20_000),
    ).toThrow(/HEADERS_TIMEOUT_MS \(2000\) must not be longer than REQUEST_TIMEOUT_MS \(1000\)/);
    expect(() => readConnectionSettings({ KEEP_ALIVE_TIMEOUT_MS: '0' }, direct, 20_000)).toThrow(
      /KEEP_ALIVE_TIMEOUT_MS must be at least 1/,
    );
    expect(() => readConnectionSettings({ MAX_CONNECTIONS: 'many' }, direct, 20_000)).toThrow(/MAX_CONNECTIONS/);
  });
});

describe('openFileLimit', () => {
  it('reads the soft limit of open files, and null when there is none to read', () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'limits-'));
    try {
      const file = path.join(directory, 'limits');
      writeFileSync(
        file,
        'Limit                     Soft Limit           Hard Limit           Units     \n' +
          'Max processes             95289                95289                processes \n' +
          'Max open files            4096                 524288               files     \n',
      );
      expect(openFileLimit(file)).toBe(4096);
      writeFileSync(file, 'Max open files            unlimited            unlimited            files     \n');
      expect(openFileLimit(file)).toBeNull();
      expect(openFileLimit(path.join(directory, 'missing'))).toBeNull();
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
