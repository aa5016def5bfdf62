import type { StatusDocument } from "../domain/collection-status.js";
import { COMPLAINTS, NOTICES } from "../domain/collections.js";
import { escapeHtml } from "../domain/html-text.js";
import { curlCommand, type ExampleRequest } from "./example-request.js";
import { sitePage } from "./page-layout.js";
import type { WebAssets } from "./web-assets.js";

const NAMES: Record<string, string> = {
  [COMPLAINTS.name]: "Do Not Call complaints",
  [NOTICES.name]: "HSR early-termination notices",
};

const integer = new Intl.NumberFormat("en-US");

/** An ISO instant as `2026-11-24 16:00 UTC`; null as "never". */
function instantText(iso: string | null): string {
  return iso === null ? "never" : `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/**
 * `/`: what this server is and holds (the figures of `/v0/status`, from the same document), how
 * to get a key, where the docs and the explorer are, and curl lines that work as copied. No script.
 */
export function landingPage(assets: WebAssets, status: StatusDocument, example: ExampleRequest): string {
  const cards = status.data
    .map((collection) => {
      const facts = collection.attributes;
      const name = NAMES[collection.id] ?? collection.id;
      return `<section class="figure-card" data-collection="${escapeHtml(collection.id)}" aria-labelledby="figures-${escapeHtml(collection.id)}">
<h3 id="figures-${escapeHtml(collection.id)}">${escapeHtml(name)}</h3>
<p><span class="big-number" data-field="record-count">${escapeHtml(integer.format(facts["record-count"]))}</span> records at <code>${escapeHtml(facts.path)}</code></p>
<dl>
<dt>Newest record</dt><dd data-field="newest-created-date">${escapeHtml(facts["newest-created-date"] ?? "none yet")}</dd>
<dt>Last updated</dt><dd data-field="last-updated">${escapeHtml(instantText(facts["last-updated"]))}</dd>
<dt>Next update due</dt><dd data-field="next-update-due">${escapeHtml(instantText(facts["next-update-due"]))}${facts.overdue ? ' <span class="error">(overdue)</span>' : ""}</dd>
<dt>Published</dt><dd class="schedule">${escapeHtml(facts.schedule)}</dd>
</dl>
</section>`;
    })
    .join("\n");
  const examples = [
    ["Five newest complaints", "/v0/dnc-complaints?items_per_page=5"],
    ["Complaints per state, most first", "/v0/dnc-complaints/counts?by=state"],
    ["Notices newest first", "/v0/hsr-early-termination-notices?sort=-date&page%5Blimit%5D=5"],
    ["What this server holds (this page's figures)", "/v0/status"],
  ]
    .map(
      ([what, path]) =>
        `<li>${escapeHtml(what!)}:<pre>${escapeHtml(curlCommand(example, "DEMO_KEY", path!))}</pre></li>`,
    )
    .join("\n");
  const caNote =
    example.caCertPath === undefined
      ? ""
      : `<p>This server's certificate is self-signed: <code>--cacert</code> names it on the server's machine (copy the file to call from elsewhere).</p>`;
  return sitePage(assets, {
    title: "ftcapi: FTC Do Not Call complaints and early-termination notices",
    current: "home",
    narrow: true,
    body: `<h1>FTC Do Not Call complaints and HSR early-termination notices</h1>
<p>This server answers the FTC's public data API (the <code>/v0/</code> paths of api.ftc.gov): the same requests get the same read-only JSON, behind API keys, so existing clients work with this address instead. It also counts complaints by day, state, city, subject or caller, and exports whole results as CSV.</p>
<h2>What it holds</h2>
<div class="figures">
${cards}
</div>
<p>As of <span data-field="time">${escapeHtml(instantText(status.meta.time))}</span>. The same figures as JSON: <code>/v0/status</code> (with a key).</p>
<h2>Get a key</h2>
<p>Every request carries a key, in the <code>X-Api-Key</code> header or the <code>api_key</code> parameter. <code>DEMO_KEY</code> works at once, for a few requests an hour from one address. For your own key (1,000 requests an hour unless the operator says otherwise), <a href="/signup">sign up</a>: it takes a name and an e-mail address, and the key is shown once.</p>
<h2>Try it</h2>
<ul class="examples">
${examples}
</ul>
${caNote}
<h2>Learn more</h2>
<ul>
<li><a href="/docs">API reference</a>: every path, parameter and answer, from <a href="/openapi.json">the OpenAPI document</a>.</li>
<li><a href="/docs/guide">Guide</a>: filters, counts, exports, errors and limits, with examples.</li>
<li><a href="/explore">Explorer</a>: complaints per day, a map by state, top subjects and numbers, a phone-number lookup and a notice search, drawn from this API in your browser.</li>
</ul>`,
  });
}
