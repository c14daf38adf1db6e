import type { ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';

/**
 * Apollo's embedded Sandbox at /graphql, with a way out when it cannot load: the Sandbox is a
 * script from Apollo's CDN, and offline the page would stay blank. Apollo renders the page; we add,
 * right after the CDN script tag, a script that finds `window.EmbeddedSandbox` missing (the tag
 * failed, or loaded something else) and shows a message pointing to the offline GraphiQL instead.
 * The page has a nonce-based Content-Security-Policy, so the added script and style reuse its nonce
 * (an `onerror=` attribute would be blocked).
 */
const SANDBOX_SCRIPT = /<script nonce="([^"]+)" src="https:\/\/embeddable-sandbox\.cdn\.apollographql\.com\/[^"]*"><\/script>/;

const fallback = (nonce: string, graphiqlPath: string) => `
<div id="sandbox-offline" hidden>
  <style nonce="${nonce}">
    #sandbox-offline { font-family: system-ui, sans-serif; max-width: 40em; margin: 4em auto; padding: 0 1em; line-height: 1.5; }
  </style>
  <h1>Apollo Sandbox could not load</h1>
  <p>Apollo Sandbox is loaded from Apollo's CDN and needs internet access, which this browser does not seem to have.</p>
  <p>Use the offline GraphiQL served by the platform instead: <a href="${graphiqlPath}">${graphiqlPath}</a>.</p>
</div>
<script nonce="${nonce}">
  if (typeof window.EmbeddedSandbox !== 'function') {
    var message = document.getElementById('sandbox-offline');
    message.hidden = false;
    // The message (and its style) replaces the page: Apollo's own "you might be offline" line included.
    document.body.replaceChildren(message);
    // Apollo's inline script, next, would only throw calling the missing constructor.
    window.EmbeddedSandbox = function () {};
  }
</script>`;

const text = (value: string) => value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A banner above the Sandbox saying why it cannot run what the person types (trusted documents only). */
const noticeBanner = (nonce: string, notice: string) => `
<div id="graph-notice" role="note">${text(notice)}</div>
<style nonce="${nonce}">
  #graph-notice { font: 14px/1.4 system-ui, sans-serif; padding: 0.5em 1em; background: #fff8c5; color: #1f2328; border-bottom: 1px solid #d4a72c; }
</style>
<script nonce="${nonce}">
  document.addEventListener('DOMContentLoaded', function () {
    var notice = document.getElementById('graph-notice');
    if (notice) document.body.prepend(notice);
  });
</script>`;

/** Adds the offline fallback (and a notice) to Apollo's embedded-Sandbox page; throws if the page no longer has the script tag. */
function withOfflineFallback(html: string, graphiqlPath: string, notice?: string): string {
  const tag = SANDBOX_SCRIPT.exec(html);
  if (!tag) throw new Error("Apollo's landing page has no embedded Sandbox script tag: update gateway/landing-page.ts");
  const at = tag.index + tag[0].length;
  return html.slice(0, at) + fallback(tag[1], graphiqlPath) + (notice ? noticeBanner(tag[1], notice) : '') + html.slice(at);
}

/**
 * The landing page plugin for the gateway: Apollo's local default (embedded Sandbox) plus the
 * fallback; `notice` is shown above it (why the explorer cannot run arbitrary operations).
 */
export function sandboxLandingPage(opts: { graphiqlPath: string; notice?: string }): ApolloServerPlugin {
  const apollo = ApolloServerPluginLandingPageLocalDefault({ embed: true, includeCookies: false });
  return {
    async serverWillStart(service) {
      const listener = await apollo.serverWillStart?.(service);
      const render = listener?.renderLandingPage?.bind(listener);
      if (!render) throw new Error("Apollo's landing page plugin renders no page");
      return {
        async renderLandingPage() {
          const page = await render();
          const html = async () =>
            withOfflineFallback(typeof page.html === 'string' ? page.html : await page.html(), opts.graphiqlPath, opts.notice);
          // Rendered once now so that an Apollo upgrade changing the page stops start-up, not each request.
          await html();
          // Apollo renders a new nonce for each request when html is a function; keep it that way.
          return { html };
        },
      };
    },
  };
}
