import { stat } from 'node:fs/promises';
import path from 'node:path';
import type Router from '@koa/router';
import { createError, createErrorWith } from '../errors.js';
import type { FilterConfigFailure } from '../../filters/config.js';
import { defaultFilterConfig } from '../../filters/defaults.js';
import type { EditResult } from '../../filters/filter-editor.js';
import type { EntryKind } from '../../filters/schema.js';
import type { AppDeps } from '../deps.js';
import { noBody, validBody } from '../validate.js';
import { decisionBody, PatternBody, PutFilterConfigBody, TestPathBody, type FilterChangeResponse, type FilterTestResponse } from './filters.schemas.js';

/** An expected failure of a filter change, as the HTTP error it is. */
function failure(f: FilterConfigFailure): Error {
  switch (f.code) {
    case 'invalid_pattern':
      return createErrorWith('invalid_pattern', { field: f.field, pattern: f.pattern }, `Invalid pattern '${f.pattern}': ${f.reason}`);
    case 'pattern_not_found':
      return createErrorWith('pattern_not_found', { field: f.field, pattern: f.pattern }, `Pattern not found: ${f.reason}`);
    default:
      return createErrorWith('invalid_request', { field: f.field }, f.reason);
  }
}

function answer(result: EditResult | FilterConfigFailure): FilterChangeResponse {
  if (!result.ok) throw failure(result);
  const { ok: _ok, ...change } = result;
  return { success: true, ...change };
}

/** What a path is on disk (a file when it does not exist); a relative path ending in '/' is a folder. */
async function kindOf(target: string): Promise<EntryKind> {
  if (!path.isAbsolute(target)) return /[/\\]$/.test(target) ? 'directory' : 'file';
  try {
    return (await stat(target)).isDirectory() ? 'directory' : 'file';
  } catch {
    return 'file';
  }
}

/** The /api/filters endpoints (bodies documented in the README and docs/filters.md). */
export function filtersRoutes(router: Router, { filters, filterEditor, jobs, store }: AppDeps): void {
  router.get('/api/filters/config', (ctx) => {
    ctx.body = filters.config;
  });

  router.put('/api/filters/config', async (ctx) => {
    const { apply_immediately, ...change } = validBody(ctx, PutFilterConfigBody);
    ctx.body = answer(await filterEditor.update(change, { apply: apply_immediately ?? true }));
  });

  router.post('/api/filters/pattern', async (ctx) => {
    const { apply_immediately, ...change } = validBody(ctx, PatternBody);
    ctx.body = answer(await filterEditor.addPattern(change, { apply: apply_immediately ?? true }));
  });

  router.delete('/api/filters/pattern', async (ctx) => {
    const { apply_immediately, ...change } = validBody(ctx, PatternBody);
    ctx.body = answer(await filterEditor.removePattern(change, { apply: apply_immediately ?? true }));
  });

  router.post('/api/filters/apply', async (ctx) => {
    noBody(ctx);
    ctx.body = answer(await filterEditor.apply());
  });

  router.get('/api/filters/defaults', (ctx) => {
    ctx.body = defaultFilterConfig();
  });

  router.post('/api/filters/reset', async (ctx) => {
    noBody(ctx);
    ctx.body = answer(await filterEditor.reset());
  });

  router.post('/api/filters/test', async (ctx) => {
    const body = validBody(ctx, TestPathBody);
    const kind = body.kind ?? (await kindOf(body.path));
    const result = filters.explain(body.path, jobs.roots(), { kind, ...(body.mode ? { mode: body.mode } : {}) });
    if (!result.ok) throw createError('invalid_path', `path: ${result.reason}`);
    const response: FilterTestResponse = {
      path: body.path,
      kind: result.relativePath === '' ? 'directory' : kind,
      root: result.root,
      watched: result.watched,
      relative_path: result.relativePath,
      ...decisionBody(result.decision),
      excluded_by_content: null,
    };
    // The patterns may let a file in that the content check keeps out (it holds a key or a token).
    const excluded = response.kind === 'file' && path.isAbsolute(body.path) ? await store.files.excluded(path.resolve(body.path)) : null;
    if (excluded) {
      response.excluded_by_content = { code: excluded.code, reason: excluded.reason, checked_at: excluded.excluded_at };
      if (response.indexed) {
        response.indexed = false;
        response.reason = `not indexed: the patterns let it in (${response.reason}), but its content check found that it ${excluded.reason}`;
      }
    }
    ctx.body = response;
  });
}
