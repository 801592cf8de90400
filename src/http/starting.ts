/**
 * What the port answers before the routes are ready. Apart from app.ts so the composition root can bind the port
 * at once and load Koa, the routes and their schemas (app.ts) while the store opens on its own thread.
 */
import type { RequestListener } from 'node:http';
import { createError } from './errors.js';

/**
 * What the port answers while the service starts (it is bound first, so a taken port is found before anything
 * is opened): 503 with the usual error body, and a Retry-After.
 */
export function startingListener(): RequestListener {
  const error = createError('service_unavailable', 'filesift is starting; try again in a moment');
  const body = JSON.stringify({ success: false, code: error.code, message: error.message });
  return (_req, res) => {
    res.writeHead(error.status, { 'content-type': 'application/json; charset=utf-8', 'retry-after': '1', connection: 'close' });
    res.end(body);
  };
}
