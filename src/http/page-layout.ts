import { escapeHtml } from "../domain/html-text.js";
import type { WebAssets } from "./web-assets.js";

/** The pages of the site's navigation. */
export type SitePage = "home" | "docs" | "guide" | "explore";

export interface PageOptions {
  /** The document's title (plain text). */
  title: string;
  current: SitePage;
  /** The content of `<main>` (HTML, escaped by the caller). */
  body: string;
  /** Classic scripts (logical asset names), in order, before the modules. */
  classicScripts?: readonly string[];
  /** Module scripts (logical asset names). */
  moduleScripts?: readonly string[];
  /** Style sheets besides the site's own. */
  styles?: readonly string[];
  /** A reading width for text pages. */
  narrow?: boolean;
}

const NAVIGATION: ReadonlyArray<{ page: SitePage | "signup"; href: string; label: string }> = [
  { page: "home", href: "/", label: "Home" },
  { page: "docs", href: "/docs", label: "API reference" },
  { page: "guide", href: "/docs/guide", label: "Guide" },
  { page: "explore", href: "/explore", label: "Explorer" },
  { page: "signup", href: "/signup", label: "Get a key" },
];

/**
 * A page of the site: the header's navigation (the current page marked), `<main>`, a footer, and
 * only files from this server (no inline script or style, so the pages' Content-Security-Policy
 * can forbid both). Without a built front, the page says how to build it and works unstyled.
 */
export function sitePage(assets: WebAssets, options: PageOptions): string {
  const tag = (logical: string, make: (url: string) => string) => {
    const url = assets.url(logical);
    return url === undefined ? "" : make(escapeHtml(url));
  };
  const styles = ["site.css", ...(options.styles ?? [])]
    .map((logical) => tag(logical, (url) => `<link rel="stylesheet" href="${url}">`))
    .join("\n");
  const scripts = [
    ...(options.classicScripts ?? []).map((logical) =>
      tag(logical, (url) => `<script src="${url}" defer></script>`),
    ),
    ...(options.moduleScripts ?? []).map((logical) =>
      tag(logical, (url) => `<script type="module" src="${url}"></script>`),
    ),
  ].join("\n");
  const navigation = NAVIGATION.map(
    ({ page, href, label }) =>
      `<li><a href="${href}"${page === options.current ? ' aria-current="page"' : ""}>${label}</a></li>`,
  ).join("");
  const unbuilt = assets.built
    ? ""
    : `<p class="notice" role="note">This server's web front was not built, so pages show without their styles and scripts: run <code>npm run build</code> and restart.</p>\n`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${escapeHtml(options.title)}</title>
${styles}
${scripts}
</head>
<body>
<a class="skip-link" href="#main">Skip to the content</a>
<header class="site-header"><div class="inner"><a class="brand" href="/">ftcapi</a><nav aria-label="Site"><ul>${navigation}</ul></nav></div></header>
<main id="main"${options.narrow ? ' class="narrow"' : ""}>
${unbuilt}${options.body}
</main>
<footer class="site-footer"><p>ftcapi: an open-source, self-hostable implementation of the FTC's public data API (api.ftc.gov). The data is the FTC's; this server is not the FTC's. Machine-readable description: <a href="/openapi.json">/openapi.json</a>.</p></footer>
</body>
</html>
`;
}
