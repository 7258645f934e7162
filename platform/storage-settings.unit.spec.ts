import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readStorageSettings } from './storage-settings.ts';

const servers = { KAFKA_BROKERS: 'kafka:9092', CLICKHOUSE_URL: 'http://clickhouse:8123', REDIS_URL: 'redis://redis' };

describe('readStorageSettings', () => {
  it('is embedded, in ./data, when no cluster server is named', () => {
    expect(readStorageSettings({})).toEqual({
      dataDirectory: path.resolve('data'),
      cluster: null,
      responseRetentionMs: 30 * 86_400_000,
    });
  });

  it('is cluster mode with all three servers, with the documented defaults', () => {
    expect(readStorageSettings({ ...servers, USAGE_RETENTION_MONTHS: '13' }).cluster).toEqual({
      kafkaBrokers: 'kafka:9092',
      clickhouseUrl: 'http://clickhouse:8123',
      redisUrl: 'redis://redis',
      namespace: 'gateway.',
      clickhouseDatabase: 'gateway',
      trafficRetentionHours: 168,
      usageRetentionMonths: 13,
      projectorWriteIntervalMs: 1000,
      projectorSessionTimeoutMs: 10_000,
      responseRetentionMs: 30 * 86_400_000,
    });
    expect(
      readStorageSettings({ ...servers, PROJECTOR_WRITE_INTERVAL_MS: '0' }).cluster?.projectorWriteIntervalMs,
    ).toBe(0);
  });

  it('refuses two of the three servers, and a retention that is not a whole number', () => {
    expect(() => readStorageSettings({ KAFKA_BROKERS: 'kafka:9092', REDIS_URL: 'redis://redis' })).toThrow(
      /KAFKA_BROKERS, CLICKHOUSE_URL and REDIS_URL all set/,
    );
    expect(() => readStorageSettings({ ...servers, TRAFFIC_RETENTION_HOURS: '1.5' })).toThrow(
      /TRAFFIC_RETENTION_HOURS/,
    );
  });

  it('takes the projector session timeout from PROJECTOR_SESSION_TIMEOUT_MS, three heartbeats at least', () => {
    expect(
      readStorageSettings({ ...servers, PROJECTOR_SESSION_TIMEOUT_MS: '3000' }).cluster?.projectorSessionTimeoutMs,
    ).toBe(3_000);
    expect(() => readStorageSettings({ ...servers, PROJECTOR_SESSION_TIMEOUT_MS: '2999' })).toThrow(
      /PROJECTOR_SESSION_TIMEOUT_MS must be at least 3000/,
    );
  });

  it('keeps stored responses STORED_RESPONSES_RETENTION_DAYS, at least a day', () => {
    expect(readStorageSettings({ STORED_RESPONSES_RETENTION_DAYS: '7' }).responseRetentionMs).toBe(7 * 86_400_000);
    expect(() => readStorageSettings({ STORED_RESPONSES_RETENTION_DAYS: '0' })).toThrow(
      /STORED_RESPONSES_RETENTION_DAYS/,
    );
  });
});
