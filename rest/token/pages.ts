import { randomBytes } from 'node:crypto';
import type { Response } from 'express';
import type { BrowserAnswer } from '../../core/token/service';

/** HTML text with `& < > " '` escaped: every value put in a page goes through it. */
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const STYLE = `
  :root { color-scheme: light dark; --fg: #1b1f24; --bg: #f6f7f9; --card: #fff; --line: #c9ced6; --accent: #1f5fbf; --err: #a4161a; }
  @media (prefers-color-scheme: dark) { :root { --fg: #e8eaed; --bg: #15171a; --card: #1f2226; --line: #4a5059; --accent: #8ab4f8; --err: #ff8a80; } }
  * { box-sizing: border-box; }
  body { margin: 0; min-height: 100vh; display: grid; place-items: center; font: 16px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
  main { width: min(100% - 2rem, 24rem); margin: 2rem 0; padding: 2rem; background: var(--card); border: 1px solid var(--line); border-radius: 8px; }
  h1 { font-size: 1.4rem; margin: 0 0 1.25rem; }
  .realm { display: block; font-size: .9rem; font-weight: normal; opacity: .8; }
  label { display: block; margin: 1rem 0 .25rem; font-weight: 600; }
  input { width: 100%; padding: .6rem .7rem; font: inherit; color: inherit; background: transparent; border: 1px solid var(--line); border-radius: 6px; }
  button { width: 100%; margin-top: 1.5rem; padding: .7rem; font: inherit; font-weight: 600; color: #fff; background: var(--accent); border: 0; border-radius: 6px; cursor: pointer; }
  @media (prefers-color-scheme: dark) { button { color: #15171a; } }
  input:focus-visible, button:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
  .error { margin: 0 0 1rem; padding: .6rem .75rem; color: var(--err); border: 1px solid currentColor; border-radius: 6px; }
`;

function page(res: Response, status: number, title: string, body: string) {
  const nonce = randomBytes(16).toString('base64');
  res
    .status(status)
    .set({
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      // No script at all; styles only from this page; never inside a frame (clickjacking); no referrer to other sites (the URL holds the request).
      'Content-Security-Policy': `default-src 'none'; style-src 'nonce-${nonce}'; frame-ancestors 'none'; base-uri 'none'`,
      'X-Frame-Options': 'DENY',
      // Not no-referrer: under it a browser posts the form with `Origin: null`, which the form's check refuses.
      'Referrer-Policy': 'same-origin',
      'X-Content-Type-Options': 'nosniff',
    })
    .send(
      `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${esc(title)}</title>
<style nonce="${nonce}">${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>`,
    );
}

const heading = (text: string, realm: string) => `<h1>${esc(text)}<span class="realm">${esc(realm)}</span></h1>`;

/** Renders what the browser endpoints answer (anything but a redirect or a back-channel logout). */
export function renderPage(res: Response, a: Exclude<BrowserAnswer, { kind: 'redirect' } | { kind: 'done' }>): void {
  switch (a.kind) {
    case 'login': {
      const error = a.error ? `<p id="input-error" class="error" role="alert">${esc(a.error)}</p>` : '';
      const described = a.error ? ' aria-invalid="true" aria-describedby="input-error"' : '';
      // The first empty field takes the focus: the username, or the password when the name is known.
      const focusUser = a.username ? '' : ' autofocus';
      const focusPassword = a.username ? ' autofocus' : '';
      return page(
        res,
        a.status,
        `Sign in to ${a.realmName}`,
        `${heading('Sign in', a.realmName)}
${error}<form id="kc-form-login" method="post" action="${esc(a.action)}">
<input type="hidden" name="request" value="${esc(a.request)}">
<label for="username">Username</label>
<input id="username" name="username" type="text" autocomplete="username" autocapitalize="none" spellcheck="false" required value="${esc(a.username)}"${focusUser}${described}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${focusPassword}${described}>
<button id="kc-login" type="submit">Sign in</button>
</form>`,
      );
    }
    case 'logout-confirm':
      return page(
        res,
        200,
        `Sign out of ${a.realmName}`,
        `${heading('Sign out?', a.realmName)}
<p>You will be signed out of every application of this realm in this browser.</p>
<form id="kc-form-logout" method="post" action="${esc(a.action)}">
<input type="hidden" name="confirm" value="${esc(a.confirm)}">
<button id="kc-logout" type="submit" autofocus>Sign out</button>
</form>`,
      );
    case 'signed-out':
      return page(
        res,
        200,
        'Signed out',
        `${heading('You are signed out', a.realmName)}
<p role="status">You can close this window.</p>`,
      );
    case 'error':
      return page(res, a.status, a.title, `<h1>${esc(a.title)}</h1>\n<p role="alert">${esc(a.message)}</p>`);
  }
}
