import { expect } from 'chai';
import { checkPrivileges, ConfigError, DEFAULT_PORT, loadConfig } from '../src/config.js';

describe('loadConfig', () => {
  it('defaults to loopback on port 60534 with the embedded database', () => {
    const config = loadConfig({});
    expect(config).to.include({ host: '127.0.0.1', port: DEFAULT_PORT, databaseUrl: null, apiToken: null, logLevel: 'info', memoryLogMs: null, sharedBuffersMb: null });
    expect(DEFAULT_PORT).to.equal(60534);
    expect(config.dataDir).to.match(/filesift$/);
  });

  it('reads every documented variable', () => {
    const config = loadConfig({
      HOST: '0.0.0.0',
      PORT: '8080',
      FILESIFT_DATA_DIR: '/var/lib/fs',
      DATABASE_URL: 'postgres://u:p@db:5432/filesift',
      FILESIFT_API_TOKEN: 'tok',
      FILESIFT_MODEL_DIR: '/models/minilm',
      LOG_LEVEL: 'debug',
      FILESIFT_ALLOWED_HOSTS: 'a.lan, B.lan',
      FILESIFT_CORS_ORIGINS: 'http://x',
      FILESIFT_MEMORY_LOG_MS: '1000',
      FILESIFT_SHARED_BUFFERS_MB: '512',
    });
    expect(config).to.deep.include({
      host: '0.0.0.0',
      port: 8080,
      dataDir: '/var/lib/fs',
      databaseUrl: 'postgres://u:p@db:5432/filesift',
      apiToken: 'tok',
      modelDir: '/models/minilm',
      logLevel: 'debug',
      allowedHosts: ['a.lan', 'b.lan'],
      corsOrigins: ['http://x'],
      memoryLogMs: 1000,
      sharedBuffersMb: 512,
    });
  });

  it('refuses a non-loopback HOST without FILESIFT_API_TOKEN', () => {
    expect(() => loadConfig({ HOST: '0.0.0.0' })).to.throw(ConfigError, /FILESIFT_API_TOKEN/);
    expect(() => loadConfig({ HOST: '::1' })).not.to.throw();
  });

  it('as root (uid 0), requires FILESIFT_API_TOKEN; as any other user it does not', () => {
    expect(() => checkPrivileges(loadConfig({}), 0)).to.throw(ConfigError, /running as root without FILESIFT_API_TOKEN/);
    expect(() => checkPrivileges(loadConfig({ FILESIFT_API_TOKEN: 'x' }), 0)).not.to.throw();
    expect(() => checkPrivileges(loadConfig({}), 1000)).not.to.throw();
  });

  it('names the variable that is wrong', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).to.throw(ConfigError, /PORT/);
    expect(() => loadConfig({ PORT: '70000' })).to.throw(ConfigError, /PORT/);
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).to.throw(ConfigError, /LOG_LEVEL/);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).to.throw(ConfigError, /DATABASE_URL/);
    expect(() => loadConfig({ FILESIFT_MODEL_PULL: 'always' })).to.throw(ConfigError, /FILESIFT_MODEL_PULL must be one of off, auto/);
    expect(() => loadConfig({ FILESIFT_MODEL_VARIANT: 'fp16' })).to.throw(ConfigError, /FILESIFT_MODEL_VARIANT/);
    expect(() => loadConfig({ FILESIFT_MODEL_BASE_URL: 'ftp://x' })).to.throw(ConfigError, /FILESIFT_MODEL_BASE_URL/);
    expect(() => loadConfig({ FILESIFT_MEMORY_LOG_MS: '10' })).to.throw(ConfigError, /FILESIFT_MEMORY_LOG_MS must be an integer of at least 100/);
    expect(() => loadConfig({ FILESIFT_SHARED_BUFFERS_MB: '1.5' })).to.throw(ConfigError, /FILESIFT_SHARED_BUFFERS_MB must be a whole number of megabytes/);
    expect(() => loadConfig({ FILESIFT_SHARED_BUFFERS_MB: '9000' })).to.throw(ConfigError, /FILESIFT_SHARED_BUFFERS_MB/);
  });

  it('reads the model variables: all-MiniLM-L6-v2 (int8), never downloaded by itself, by default', () => {
    expect(loadConfig({})).to.include({ model: 'all-MiniLM-L6-v2', modelPull: 'off', modelVariant: 'int8', modelBaseUrl: null, modelManifest: null });
    expect(loadConfig({ FILESIFT_MODEL: 'BGE-small-en-v1.5', FILESIFT_MODEL_PULL: 'auto' })).to.include({ model: 'bge-small-en-v1.5', modelPull: 'auto' });
    expect(() => loadConfig({ FILESIFT_MODEL: 'gte-small' })).to.throw(ConfigError, /FILESIFT_MODEL must be one of all-MiniLM-L6-v2, bge-small-en-v1.5, got 'gte-small'/);
    expect(
      loadConfig({ FILESIFT_MODEL_PULL: 'AUTO', FILESIFT_MODEL_VARIANT: 'fp32', FILESIFT_MODEL_BASE_URL: 'https://mirror.lan/m', FILESIFT_MODEL_MANIFEST: '/etc/m.json' }),
    ).to.include({ modelPull: 'auto', modelVariant: 'fp32', modelBaseUrl: 'https://mirror.lan/m', modelManifest: '/etc/m.json' });
  });
});
