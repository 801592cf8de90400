import { createRequire } from 'node:module';
import path from 'node:path';
import type Router from '@koa/router';
import { send } from '@koa/send';
import type { AppDeps } from '../deps.js';
import { createError } from '../errors.js';
import { openApiDocument } from '../openapi.js';

/** Swagger UI's files, from the swagger-ui-dist package (nothing is fetched from a CDN: the page works offline). */
const swaggerDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const SWAGGER_FILES = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png']);

/** Our own start-up script (a file, not inline, so the page's Content-Security-Policy can forbid inline scripts). */
const INIT_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({ url: '/api/openapi.json', dom_id: '#swagger-ui', deepLinking: true, tryItOutEnabled: false });
});
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>filesift API reference</title>
  <link rel="icon" type="image/png" href="/api/docs/favicon-32x32.png">
  <link rel="stylesheet" href="/api/docs/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/api/docs/swagger-ui-bundle.js"></script>
  <script src="/api/docs/init.js"></script>
</body>
</html>
`;

/** Swagger UI sets styles and shows images inline; nothing else is allowed, and nothing from elsewhere. */
const DOCS_CSP = "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'";

/** GET /api/openapi.json (generated from the route schemas, src/http/openapi.ts) and its reference page /api/docs. */
export function docsRoutes(router: Router, { config }: AppDeps): void {
  const document = JSON.stringify(openApiDocument(config.version));

  router.get('/api/openapi.json', (ctx) => {
    ctx.type = 'application/json';
    ctx.body = document;
  });

  router.get('/api/docs', (ctx) => {
    ctx.set('Content-Security-Policy', DOCS_CSP);
    ctx.type = 'text/html';
    ctx.body = PAGE;
  });

  router.get('/api/docs/:asset', async (ctx) => {
    const asset = (ctx.params as { asset: string }).asset;
    ctx.set('Content-Security-Policy', DOCS_CSP);
    if (asset === 'init.js') {
      ctx.type = 'text/javascript';
      ctx.body = INIT_SCRIPT;
      return;
    }
    if (!SWAGGER_FILES.has(asset)) throw createError('route_not_found', `GET ${ctx.path}`);
    await send(ctx, asset, { root: swaggerDir, maxage: 86_400_000 });
  });
}
