import { escapeHtml } from "../domain/html-text.js";
import { sitePage } from "./page-layout.js";
import type { Guide, WebAssets } from "./web-assets.js";

interface Operation {
  summary?: string;
  description?: string;
}

const METHODS = ["get", "head", "post", "put", "patch", "delete"] as const;

/**
 * `/docs`: the API reference drawn by Redoc (served from this server) from `/openapi.json`, and,
 * for readers without JavaScript (or before Redoc has drawn), a plain list of every path and
 * what it does, hidden once Redoc has rendered.
 */
export function docsPage(assets: WebAssets, document: Record<string, unknown>): string {
  const paths = (document.paths ?? {}) as Record<string, Record<string, Operation>>;
  const operations = Object.entries(paths)
    .flatMap(([path, item]) =>
      METHODS.filter((method) => item[method] !== undefined).map((method) => {
        const operation = item[method]!;
        return `<li><code>${method.toUpperCase()} ${escapeHtml(path)}</code>: ${escapeHtml(operation.summary ?? operation.description ?? "")}</li>`;
      }),
    )
    .join("\n");
  return sitePage(assets, {
    title: "API reference · ftcapi",
    current: "docs",
    classicScripts: ["redoc.js"],
    moduleScripts: ["docs.js"],
    body: `<h1>API reference</h1>
<p>Every path of this server's API, its parameters and answers, read from <a href="/openapi.json">/openapi.json</a>. The <a href="/docs/guide">guide</a> explains filters, counts, exports, errors and limits with examples.</p>
<section id="plain-reference" class="plain-reference" aria-labelledby="plain-reference-title">
<h2 id="plain-reference-title">Paths</h2>
<ul>
${operations}
</ul>
</section>
<div id="redoc-container" data-spec-url="/openapi.json"></div>`,
  });
}

/** `/docs/guide/NAME`: one of docs/*.md, rendered at build time, with the list of the others. */
export function guidePage(assets: WebAssets, guide: Guide): string {
  const others = assets
    .guides()
    .map(
      (other) =>
        `<li><a href="/docs/guide${other.name === "api" ? "" : `/${escapeHtml(other.name)}`}"${other.name === guide.name ? ' aria-current="page"' : ""}>${escapeHtml(other.title)}</a></li>`,
    )
    .join("");
  return sitePage(assets, {
    title: `${guide.title} · ftcapi guide`,
    current: "guide",
    narrow: true,
    body: `<nav aria-label="Guides" class="guide-list"><details><summary>All guides</summary><ul>${others}</ul></details></nav>
<article class="guide">
${guide.html}
</article>`,
  });
}

/** `/explore`: the explorer's frame; its script (explore.js) draws the views. */
export function explorePage(assets: WebAssets): string {
  return sitePage(assets, {
    title: "Explorer · ftcapi",
    current: "explore",
    styles: ["explore.css"],
    moduleScripts: ["explore.js"],
    body: `<h1>Explore the data</h1>
<noscript><p class="notice">The explorer draws its charts in your browser with JavaScript, which is off. The same figures come from the API itself: see the <a href="/docs/guide#counts-get-v0dnc-complaintscounts">counts</a> in the guide, or the <a href="/">examples on the home page</a>.</p></noscript>
<section class="key-panel" aria-labelledby="key-title" data-needs-script hidden>
<h2 id="key-title" class="visually-hidden">API key</h2>
<form id="key-form" class="inline-field">
<label for="api-key">Your API key (optional)</label>
<input type="password" id="api-key" name="api-key" autocomplete="off" spellcheck="false" aria-describedby="key-help"> <button type="submit">Use this key</button> <button type="button" id="use-demo-key" class="secondary">Use DEMO_KEY</button>
</form>
<p id="key-status" aria-live="polite"></p>
<details><summary>About keys</summary><p id="key-help">Without a key of your own the explorer uses <code>DEMO_KEY</code>, which allows a few requests an hour from one address; <a href="/signup">get a key</a> for more. Your key stays in this browser (local storage) and is sent only in the <code>X-Api-Key</code> header, never in a link.</p></details>
</section>
<nav aria-label="Explorer views" class="view-tabs" data-needs-script hidden><ul>
<li><a href="?view=complaints">Complaints</a></li>
<li><a href="?view=phone">Phone number</a></li>
<li><a href="?view=notices">Notices</a></li>
</ul></nav>
<div id="api-problem" role="alert" hidden></div>
<div id="view"></div>`,
  });
}
