import express, { type RequestHandler } from 'express';
import { dirname } from 'node:path';

/**
 * The offline docs page (Swagger UI, as FastAPI services have at /docs). Its assets come from the
 * swagger-ui-dist package, served by this process, so it works without internet access.
 */
export const DOCS_ASSETS_PATH = '/_assets/swagger-ui';

export const docsAssets = (): RequestHandler =>
  express.static(dirname(require.resolve('swagger-ui-dist/package.json')), { index: false, maxAge: '1h' });

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export const docsPage = (title: string, openapiUrl: string): string => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>${escape(title)} - docs</title>
  <link rel="stylesheet" href="${DOCS_ASSETS_PATH}/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${DOCS_ASSETS_PATH}/swagger-ui-bundle.js"></script>
  <script src="${DOCS_ASSETS_PATH}/docs-init.js" data-openapi="${escape(openapiUrl)}"></script>
</body>
</html>`;

/** Inline scripts would need a CSP exception; the init script is served as a file instead. */
export const docsInitScript = `(function () {
  var url = document.currentScript.getAttribute('data-openapi');
  window.ui = SwaggerUIBundle({ url: url, dom_id: '#swagger-ui', deepLinking: true });
})();`;
