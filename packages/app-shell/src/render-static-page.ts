import { createHash } from "node:crypto";

/** One page of an app: a static document with its own inline style and script, and no data in it. */
export interface StaticPage {
  html: string;
  /**
   * Served with it: a CSP allowing exactly this page's own script and style (by hash) and requests to
   * its own origin (should a hostile value ever reach the DOM as markup, it could run nothing), no framing
   * by anyone (`frame-ancestors 'none'`, and `X-Frame-Options` for older browsers), no MIME sniffing, no
   * Referer, no caching.
   */
  headers: Readonly<Record<string, string>>;
}

const hash = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;

/** Both apps' pages, put together and served the same way. */
export function renderStaticPage(page: {
  title: string;
  style: string;
  body: string;
  script: string;
}): StaticPage {
  return {
    html: `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title}</title>
<style>${page.style}</style>
</head>
<body>${page.body}<script>${page.script}</script>
</body>
</html>
`,
    headers: Object.freeze({
      "Content-Type": "text/html; charset=utf-8",
      "Content-Security-Policy": `default-src 'none'; script-src ${hash(page.script)}; style-src ${hash(page.style)}; connect-src 'self'; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
      "X-Frame-Options": "DENY",
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "no-referrer",
    }),
  };
}
