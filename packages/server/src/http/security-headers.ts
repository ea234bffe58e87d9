/**
 * Browser security headers on every answer of the master: the console (index.html and its assets), the API, the
 * event streams and the OpenAPI page. The console is a same-origin SPA whose scripts are all files under /assets,
 * so the policy allows scripts from this origin only: text that slips through as HTML cannot run script, and the
 * page cannot be framed (clickjacking) or leak its URLs in a Referer.
 *
 * Styles keep 'unsafe-inline': antd's CSS-in-JS, CodeMirror and ECharts insert <style> elements at run time.
 */
import fastifyHelmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

export const CONTENT_SECURITY_POLICY: Record<string, string[]> = {
  'default-src': ["'self'"],
  'base-uri': ["'self'"],
  'script-src': ["'self'"],
  'script-src-attr': ["'none'"],
  'style-src': ["'self'", "'unsafe-inline'"],
  // data: for small images the bundler inlines (the discussion-group QR code) and icons of the OpenAPI page.
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'", 'data:'],
  // API calls, the task log/result event streams and web sockets all go to this origin.
  'connect-src': ["'self'"],
  'object-src': ["'none'"],
  'frame-src': ["'none'"],
  'frame-ancestors': ["'none'"],
  'form-action': ["'self'"],
};

export async function registerSecurityHeaders(app: FastifyInstance): Promise<void> {
  await app.register(fastifyHelmet, {
    global: true,
    // useDefaults: false drops helmet's `upgrade-insecure-requests`, which would break a console served over plain
    // HTTP on a LAN address (every asset request would be upgraded to an https:// URL that nothing answers).
    contentSecurityPolicy: { useDefaults: false, directives: CONTENT_SECURITY_POLICY },
    xFrameOptions: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    // HTTPS and its Strict-Transport-Security are the business of the reverse proxy in front of the master.
    strictTransportSecurity: false,
  });
}
