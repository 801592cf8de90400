import Router from '@koa/router';
import Koa from 'koa';
import type { AppDeps } from './deps.js';
import { jsonBodyMiddleware } from './middleware/body.js';
import { errorMiddleware } from './middleware/errors.js';
import { securityMiddleware } from './middleware/security.js';
import { isPublicPath, webAppMiddleware } from './middleware/web-app.js';
import { webAppDir } from '../paths.js';
import { docsRoutes } from './routes/docs.js';
import { filesRoutes } from './routes/files.js';
import { filtersRoutes } from './routes/filters.js';
import { indexingRoutes } from './routes/indexing.js';
import { queueRoutes } from './routes/queue.js';
import { schedulerRoutes } from './routes/scheduler.js';
import { watchRoutes } from './routes/watch.js';
import { searchRoutes } from './routes/search.js';
import { settingsRoutes } from './routes/settings.js';
import { statusRoutes } from './routes/status.js';
import { SseSessions, updatesRoutes } from './routes/updates.js';

export interface HttpApp {
  app: Koa;
  sessions: SseSessions;
  /** The API's routes (the OpenAPI test compares them with the document). */
  router: Router;
}

/** Composes the error path, the security checks, the web app's files, JSON body parsing, then the routes. Nothing else lives here. */
export function createApp(deps: AppDeps): HttpApp {
  const app = new Koa();
  app.silent = true; // errors are logged by errorMiddleware, once
  const sessions = new SseSessions();
  // Paths match with and without a trailing slash (the router is not strict).
  const router = new Router();
  settingsRoutes(router, deps);
  statusRoutes(router, deps);
  indexingRoutes(router, deps);
  filesRoutes(router, deps);
  searchRoutes(router, deps);
  filtersRoutes(router, deps);
  watchRoutes(router, deps);
  queueRoutes(router, deps);
  schedulerRoutes(router, deps);
  updatesRoutes(router, deps, sessions);
  docsRoutes(router, deps);

  app.use(errorMiddleware(deps.logger));
  app.use(securityMiddleware({ ...deps.config, isPublic: isPublicPath }));
  app.use(webAppMiddleware(webAppDir));
  app.use(jsonBodyMiddleware());
  app.use(router.routes());
  // Sets 405/501 with an Allow header; errorMiddleware turns that into our JSON error.
  app.use(router.allowedMethods());
  return { app, sessions, router };
}

