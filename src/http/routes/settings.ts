import type Router from '@koa/router';
import { createErrorWith } from '../errors.js';
import { defaultSettings } from '../../settings/schema.js';
import type { AppDeps } from '../deps.js';
import type { SettingsBody } from './settings.schemas.js';

/** GET and PUT /api/settings/, GET /api/settings/defaults (schemas and descriptions in settings.schemas.ts). */
export function settingsRoutes(router: Router, { settings }: AppDeps): void {
  router.get('/api/settings', (ctx) => {
    ctx.body = settings.get();
  });

  router.get('/api/settings/defaults', (ctx) => {
    ctx.body = defaultSettings();
  });

  router.put('/api/settings', async (ctx) => {
    const body: unknown = (ctx.request as { body?: unknown }).body;
    if (body === null || typeof body !== 'object' || Array.isArray(body) || Object.keys(body).length === 0) {
      throw createErrorWith('invalid_request', { errors: [] }, 'body must be a non-empty JSON object of dotted keys, e.g. {"queue.cooldown_seconds": 5}');
    }
    const result = await settings.update(body as Record<string, unknown>);
    if (!result.ok) {
      throw createErrorWith('invalid_request', { errors: result.errors }, `Invalid settings (nothing was changed): ${result.errors.join('; ')}`);
    }
    ctx.body = result.settings satisfies SettingsBody;
  });
}
