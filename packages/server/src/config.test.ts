import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, REPOSITORY_ROOT, loadConfig } from './config.js';

describe('configuration', () => {
  it('has working defaults for a fresh machine', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 8080, captchaEnabled: true, databaseUrl: undefined, redisUrl: undefined });
    expect(config.dataDir).toMatch(/\/data$/);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('keeps the data under ./data of the repository, wherever npm starts the server from', () => {
    const rootManifest = JSON.parse(fs.readFileSync(path.join(REPOSITORY_ROOT, 'package.json'), 'utf8'));
    expect(rootManifest.workspaces).toContain('packages/server');
    const cwd = process.cwd();
    try {
      process.chdir(path.join(REPOSITORY_ROOT, 'packages/server'));
      expect(loadConfig({}).dataDir).toBe(path.join(REPOSITORY_ROOT, 'data'));
      expect(loadConfig({ DATA_DIR: '' }).dataDir).toBe(path.join(REPOSITORY_ROOT, 'data'));
      // A relative path someone gives means their working directory, as on any command line.
      expect(loadConfig({ DATA_DIR: './mine' }).dataDir).toBe(path.join(REPOSITORY_ROOT, 'packages/server/mine'));
    } finally {
      process.chdir(cwd);
    }
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ DATABASE_URL: '', REDIS_URL: '', PORT: '' })).toMatchObject({
      databaseUrl: undefined,
      redisUrl: undefined,
      port: 8080,
    });
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '9000',
      DATA_DIR: '/srv/edc',
      DATABASE_URL: 'postgres://u@h/db',
      REDIS_URL: 'redis://127.0.0.1:6379',
      EDC_ADMIN_PASSWORD: 'Admin@123',
      EDC_CAPTCHA: 'off',
      TRUST_PROXY: 'true',
    });
    expect(config).toMatchObject({
      port: 9000,
      dataDir: '/srv/edc',
      databaseUrl: 'postgres://u@h/db',
      redisUrl: 'redis://127.0.0.1:6379',
      adminPassword: 'Admin@123',
      captchaEnabled: false,
      trustProxy: true,
    });
  });

  it('sizes the pool of PostgreSQL connections by DATABASE_POOL_SIZE (default 10; 1 to 500)', () => {
    expect(loadConfig({}).databasePoolSize).toBe(10);
    expect(loadConfig({ DATABASE_POOL_SIZE: '40' }).databasePoolSize).toBe(40);
    expect(() => loadConfig({ DATABASE_POOL_SIZE: '0' })).toThrow(/DATABASE_POOL_SIZE/);
    expect(() => loadConfig({ DATABASE_POOL_SIZE: 'many' })).toThrow(/DATABASE_POOL_SIZE/);
  });

  it('limits REDCap API calls per address by REDCAP_API_RATE_LIMIT_PER_MINUTE (default 120)', () => {
    expect(loadConfig({}).redcapApiRateLimitPerMinute).toBe(120);
    expect(loadConfig({ REDCAP_API_RATE_LIMIT_PER_MINUTE: '600' }).redcapApiRateLimitPerMinute).toBe(600);
    expect(() => loadConfig({ REDCAP_API_RATE_LIMIT_PER_MINUTE: '0' })).toThrow(/REDCAP_API_RATE_LIMIT_PER_MINUTE/);
  });

  it('stops with a message naming every bad variable', () => {
    const bad = () =>
      loadConfig({ PORT: 'eighty', EDC_CAPTCHA: 'maybe', DATABASE_URL: 'mysql://x', EDC_ADMIN_PASSWORD: '123' });
    expect(bad).toThrow(ConfigError);
    try {
      bad();
    } catch (err) {
      const message = (err as Error).message;
      for (const name of ['PORT', 'EDC_CAPTCHA', 'DATABASE_URL', 'EDC_ADMIN_PASSWORD']) expect(message).toContain(name);
    }
  });
});
