/**
 * The page's HTML shell: no inline script or style (the Content-Security-
 * Policy forbids inline scripts); the page's script and styles are files
 * served by macs itself (no CDN: it works offline).
 */

/** The Content-Security-Policy of every answer. xterm.js sets styles of its own, hence `style-src 'unsafe-inline'`; scripts only from this server. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The headers every answer carries. */
export const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-store',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/** The page. */
export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="dark light">
<title>macs</title>
<link rel="stylesheet" href="/assets/page.css">
<script src="/assets/page.js" defer></script>
</head>
<body>
<div id="app"><p class="loading">connecting to macs…</p></div>
</body>
</html>
`;

/** What an unauthenticated browser is told. */
export const UNAUTHORIZED_TEXT =
  'macs web: not signed in. Open the URL `macs web` printed (it carries a secret); this page does not show it again.\n';
/** The answer to a wrong guess from an address that made too many. */
export const TOO_MANY_TEXT =
  'macs web: too many failed sign-ins from this address; wrong ones are refused for a minute\n';
