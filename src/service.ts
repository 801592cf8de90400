import { createServer, type RequestListener, type Server } from 'node:http';
import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { spawnStore, type StoreHandle } from './actors/store/index.js';
import type { ServiceConfig } from './config.js';
import { EventBus } from './events/bus.js';
import { createApp } from './http/app.js';
import { createLogger, type Logger } from './logger.js';
import { SettingsService } from './settings/settings.service.js';
import { StatusService } from './status/status.service.js';

export interface Service {
  /** Base URL the service listens on, e.g. http://127.0.0.1:60534 */
  url: string;
  port: number;
  bus: EventBus;
  settings: SettingsService;
  store: StoreHandle;
  logger: Logger;
  /** Graceful stop: no new requests, event streams ended, actors drained, database closed. Idempotent. */
  close(reason?: string): Promise<void>;
}

export interface StartOptions {
  logger?: Logger;
  /** SSE heartbeat interval (default 15 s). */
  sseHeartbeatMs?: number;
  /** How many events are kept for replay to reconnecting clients (default 1000). */
  eventReplayCapacity?: number;
}

/** The composition root: starts the actors in dependency order and the HTTP front end last. */
export async function startService(config: ServiceConfig, options: StartOptions = {}): Promise<Service> {
  const logger = options.logger ?? createLogger(config.logLevel);
  await mkdir(config.dataDir, { recursive: true });
  const store = await spawnStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, logger });
  const stack: (() => Promise<void>)[] = [() => store.close()];
  try {
    const bus = new EventBus({ replayCapacity: options.eventReplayCapacity ?? 1000 });
    const settings = await SettingsService.load(store.api.config, logger.child({ actor: 'settings' }));
    const status = new StatusService(store, config.version);
    const { app, sessions } = createApp({ config, logger, bus, settings, status, sseHeartbeatMs: options.sseHeartbeatMs });

    const server = await listen(app.callback(), config.host, config.port);
    stack.push(() => closeServer(server, () => sessions.closeAll()));
    const port = (server.address() as AddressInfo).port;
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    const url = `http://${host}:${port}`;
    bus.publish('service_started', { version: config.version, engine: store.engine });
    logger.info({ url, engine: store.engine, location: store.location, dataDir: config.dataDir }, 'filesift is listening');

    let closing: Promise<void> | null = null;
    return {
      url,
      port,
      bus,
      settings,
      store,
      logger,
      close(reason = 'shutdown') {
        closing ??= (async () => {
          logger.info({ reason }, 'filesift is stopping');
          bus.publish('service_stopping', { reason });
          await unwind(stack, logger);
        })();
        return closing;
      },
    };
  } catch (err) {
    await unwind(stack, logger);
    throw err;
  }
}

/** Stops what was started, newest first; one failure does not keep the rest open. */
async function unwind(stack: (() => Promise<void>)[], logger: Logger): Promise<void> {
  while (stack.length > 0) {
    const stop = stack.pop()!;
    try {
      await stop();
    } catch (err) {
      logger.error({ err }, 'error while stopping');
    }
  }
}

async function listen(handler: RequestListener, host: string, port: number): Promise<Server> {
  const server = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

async function closeServer(server: Server, endStreams: () => void): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  endStreams();
  server.closeIdleConnections();
  // Requests in flight get a moment to finish; then the remaining connections are cut.
  const timer = setTimeout(() => server.closeAllConnections(), 5000);
  await closed;
  clearTimeout(timer);
}
