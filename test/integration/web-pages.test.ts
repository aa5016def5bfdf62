/**
 * The web front as HTTP sees it (issue 15): pages with a strict Content-Security-Policy and no
 * inline script, values escaped, assets precompressed and cached with ETag/304, plain HTTP
 * redirected for pages only, keys never echoed, and the explorer's weight. The browser's side is
 * in test/e2e/web-front.test.ts. Needs the built front (`npm run build`, as `npm test` does).
 */
import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { WebAssets } from "../../src/http/web-assets.js";
import { writeComplaintCsv } from "../../src/ingest/complaint-generator.js";
import { writeNoticeCsv } from "../../src/ingest/notice-generator.js";
import { DIALECTS, freshDatabase } from "../support/dialects.js";
import { createTestKey, importFiles } from "../support/seed.js";
import { makeTempDirectory, startTestServer, type TestServer } from "../support/test-server.js";

interface ByteResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text(): string;
}

/** A request whose body is kept as bytes (compressed answers), trusting the test server's certificate. */
function fetchBytes(
  url: string,
  options: { method?: string; headers?: Record<string, string>; ca?: string } = {},
): Promise<ByteResponse> {
  const target = new URL(url);
  const send = target.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      target,
      { method: options.method ?? "GET", headers: options.headers, ca: options.ca, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const body = Buffer.concat(chunks);
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body,
            text: () => body.toString("utf8"),
          });
        });
      },
    );
    req.on("error", reject);
    req.end();
  });
}

const PAGES = ["/", "/docs", "/docs/guide", "/docs/guide/keys-and-limits", "/explore"];
const EXPLORER_BUDGET_BYTES = 500 * 1024;

/** The decoded text of an answer in whatever encoding it came. */
function decoded(res: ByteResponse): string {
  const coding = res.headers["content-encoding"];
  if (coding === "br") return brotliDecompressSync(res.body).toString("utf8");
  if (coding === "gzip") return gunzipSync(res.body).toString("utf8");
  return res.text();
}

/** The URLs of the scripts and style sheets a page loads. */
function loadedFiles(html: string): string[] {
  const scripts = [...html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)].map((match) => match[1]!);
  const styles = [...html.matchAll(/<link\b[^>]*rel="stylesheet"[^>]*href="([^"]+)"/g)].map(
    (match) => match[1]!,
  );
  return [...scripts, ...styles];
}

describe("the web front's build", () => {
  it("is in dist/web (npm run build writes it)", async () => {
    const assets = await WebAssets.load();
    assert.ok(assets.built, "dist/web/manifest.json is missing: run `npm run build` before the tests");
    for (const logical of ["site.css", "explore.js", "explore.css", "docs.js", "redoc.js"]) {
      assert.match(assets.url(logical) ?? "", /^\/assets\/[\w.]+-[A-Za-z0-9]{8,}\.(js|css)$/, logical);
    }
  });
});

for (const dialect of DIALECTS) {
  describe(`web pages (${dialect})`, () => {
    let server: TestServer;
    let key: string;

    before(async () => {
      const db = await freshDatabase(dialect);
      const directory = await makeTempDirectory();
      const complaints = join(directory, "complaints.csv");
      const notices = join(directory, "notices.csv");
      await writeComplaintCsv(
        { rows: 500, days: 5, seed: 7, endSeconds: Date.UTC(2026, 10, 1) / 1000 },
        complaints,
      );
      await writeNoticeCsv({ rows: 40, seed: 7 }, notices);
      await importFiles(db, { complaints: [complaints], notices: [notices] });
      key = await createTestKey(db);
      server = await startTestServer({ db });
    });
    after(() => server?.stop());

    const get = (path: string, headers: Record<string, string> = {}, method = "GET") =>
      fetchBytes(`${server.httpsUrl}${path}`, { headers, ca: server.ca, method });

    it("serves each page as HTML under a Content-Security-Policy that allows no inline script", async () => {
      for (const path of PAGES) {
        const res = await get(path);
        assert.equal(res.status, 200, path);
        assert.match(String(res.headers["content-type"]), /^text\/html; charset=utf-8/, path);
        const csp = String(res.headers["content-security-policy"]);
        assert.match(csp, /(^|; )script-src 'self'(;|$)/, `${path}: ${csp}`);
        assert.match(csp, /default-src 'none'/, path);
        assert.match(csp, /frame-ancestors 'none'/, path);
        assert.doesNotMatch(csp, /unsafe-eval|https?:|\*/, `${path}: ${csp}`);
        // Only /docs relaxes styles, for Redoc's injected <style> elements.
        if (path === "/docs") assert.match(csp, /style-src 'self' 'unsafe-inline'/);
        else assert.match(csp, /style-src 'self'(;|$)/, path);
        assert.equal(res.headers["x-content-type-options"], "nosniff", path);
        assert.equal(res.headers["access-control-allow-origin"], undefined, `${path}: same-origin page`);
        const html = res.text();
        const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
        for (const [, attributes, content] of scripts) {
          assert.match(attributes!, /\bsrc="\/assets\//, `${path}: a script not from /assets`);
          assert.equal(content!.trim(), "", `${path}: an inline script`);
        }
        assert.doesNotMatch(html, /<style|\sstyle=|\son[a-z]+=/i, `${path}: inline style or handler`);
        assert.doesNotMatch(
          html,
          /<(script|link|img|iframe)\b[^>]*\b(src|href)="(https?:)?\/\//,
          `${path}: a file from another origin`,
        );
        for (const file of loadedFiles(html)) {
          assert.equal((await get(file)).status, 200, `${path} loads ${file}`);
        }
      }
      assert.equal((await get("/")).text().includes("<script"), false, "the landing page needs no script");
    });

    it("shows on / the figures of /v0/status and curl lines with this server's address and certificate", async () => {
      const status = JSON.parse((await get("/v0/status", { "X-Api-Key": key })).text());
      const html = (await get("/")).text();
      for (const collection of status.data) {
        const card =
          new RegExp(`data-collection="${collection.id}"[\\s\\S]*?</section>`).exec(html)?.[0] ?? "";
        const count = /data-field="record-count">([\d,]+)</.exec(card)?.[1];
        assert.equal(Number(count?.replace(/,/g, "")), collection.attributes["record-count"], collection.id);
        assert.ok(collection.attributes["record-count"] > 0);
        const newest = /data-field="newest-created-date">([^<]*)</.exec(card)?.[1];
        assert.equal(newest, collection.attributes["newest-created-date"], collection.id);
      }
      assert.ok(html.includes(`${server.httpsUrl}/v0/dnc-complaints?items_per_page=5`));
      assert.match(html, /curl --cacert \S*tls-cert\.pem -H &#39;X-Api-Key: DEMO_KEY&#39;/);
      assert.ok(
        html.includes('href="/signup"') && html.includes('href="/docs"') && html.includes('href="/explore"'),
      );
    });

    it("lists every path on /docs without JavaScript and renders docs/*.md as guides", async () => {
      const docs = (await get("/docs")).text();
      assert.match(docs, /id="plain-reference"/);
      for (const path of [
        "/v0/dnc-complaints",
        "/v0/dnc-complaints/counts",
        "/v0/hsr-early-termination-notices",
        "/v0/status",
      ]) {
        assert.ok(docs.includes(`<code>GET ${path}</code>`), path);
      }
      const guide = (await get("/docs/guide")).text();
      assert.match(guide, /<h1 id="the-do-not-call-complaints-api">The Do Not Call complaints API<\/h1>/);
      assert.match(guide, /<a href="\/docs\/guide\/keys-and-limits">keys-and-limits\.md<\/a>/);
      assert.match(guide, /<table>/);
      const missing = await get("/docs/guide/no-such-guide");
      assert.equal(missing.status, 404);
      assert.equal(JSON.parse(missing.text()).error.code, "NOT_FOUND");
    });

    it("compresses pages and assets for the client, precompressed assets byte for byte", async () => {
      const html = (await get("/explore")).text();
      const script = loadedFiles(html).find((file) => file.endsWith(".js"))!;
      const plain = await get(script, { "Accept-Encoding": "identity" });
      assert.equal(plain.headers["content-encoding"], undefined);
      assert.match(String(plain.headers["content-type"]), /^text\/javascript/);
      for (const coding of ["br", "gzip"]) {
        const res = await get(script, { "Accept-Encoding": `${coding}, deflate` });
        assert.equal(res.headers["content-encoding"], coding);
        assert.equal(res.headers.vary, "Accept-Encoding");
        assert.ok(
          res.body.length < plain.body.length / 2,
          `${coding}: ${res.body.length} of ${plain.body.length}`,
        );
        assert.equal(decoded(res), plain.text());
        const page = await get("/", { "Accept-Encoding": coding });
        assert.equal(page.headers["content-encoding"], coding);
        assert.match(decoded(page), /^<!doctype html>/);
      }
      assert.equal(
        (await get(script, { "Accept-Encoding": "br;q=0, gzip" })).headers["content-encoding"],
        "gzip",
      );
    });

    it("caches hashed assets for a year with an ETag, and answers 304 to it", async () => {
      const html = (await get("/explore")).text();
      for (const file of loadedFiles(html)) {
        const res = await get(file, { "Accept-Encoding": "br" });
        assert.equal(res.headers["cache-control"], "public, max-age=31536000, immutable", file);
        const etag = String(res.headers.etag);
        assert.match(etag, /^"[\w-]+"$/, file);
        const again = await get(file, { "Accept-Encoding": "br", "If-None-Match": etag });
        assert.equal(again.status, 304, file);
        assert.equal(again.body.length, 0, file);
        const other = await get(file, { "Accept-Encoding": "identity", "If-None-Match": etag });
        assert.equal(other.status, 200, `${file}: another encoding is another representation`);
        assert.notEqual(other.headers.etag, etag);
        const head = await get(file, { "Accept-Encoding": "br" }, "HEAD");
        assert.equal(head.status, 200);
        assert.equal(head.body.length, 0);
      }
      const unknown = await get("/assets/explore-00000000.js");
      assert.equal(unknown.status, 404);
      assert.equal(JSON.parse(unknown.text()).error.code, "NOT_FOUND");
    });

    it("redirects pages, not the API, from plain HTTP to HTTPS, without the key", async () => {
      const plain = (path: string, method = "GET") => fetchBytes(`${server.httpUrl}${path}`, { method });
      const httpsPort = new URL(server.httpsUrl).port;
      for (const path of [...PAGES, "/explore?view=phone&number=2125550100"]) {
        const res = await plain(path);
        assert.equal(res.status, 301, path);
        const location = new URL(String(res.headers.location));
        assert.equal(location.protocol, "https:", path);
        assert.equal(location.port, httpsPort, path);
        assert.equal(`${location.pathname}${location.search}`, path, path);
      }
      const keyed = await plain(`/explore?view=notices&api_key=${key}`);
      assert.equal(keyed.status, 301);
      assert.equal(new URL(String(keyed.headers.location)).search, "?view=notices");
      assert.ok(!JSON.stringify(keyed.headers).includes(key));
      const head = await plain("/", "HEAD");
      assert.equal(head.status, 301);
      for (const path of ["/v0/dnc-complaints", "/v0/status", "/openapi.json", "/signup"]) {
        const res = await plain(path);
        assert.equal(res.status, 400, path);
        assert.equal(JSON.parse(res.text()).error.code, "HTTPS_REQUIRED", path);
      }
    });

    it("never echoes a key given to a page, in its body or its headers", async () => {
      for (const path of PAGES) {
        for (const query of [`?api_key=${key}`, `?view=phone&api_key=${key}&number=1`]) {
          const res = await get(`${path}${query}`, { "X-Api-Key": key, "Accept-Encoding": "gzip" });
          assert.equal(res.status, 200, path);
          assert.ok(!decoded(res).includes(key), `${path}${query}: the key is in the page`);
          assert.ok(!JSON.stringify(res.headers).includes(key), `${path}${query}: the key is in a header`);
        }
      }
    });

    it("weighs the explorer (page, scripts, styles) under 500 KB compressed", async () => {
      const page = await get("/explore", { "Accept-Encoding": "br, gzip" });
      let total = page.body.length;
      const files = loadedFiles(decoded(page));
      assert.ok(files.length >= 3, files.join(", "));
      for (const file of files) total += (await get(file, { "Accept-Encoding": "br, gzip" })).body.length;
      assert.ok(total < EXPLORER_BUDGET_BYTES, `the explorer weighs ${total} bytes compressed`);
    });

    it("escapes every value it writes into HTML (here a base URL full of markup)", async () => {
      const hostile = await startTestServer({
        db: await freshDatabase(dialect),
        baseUrl: `https://ftc.example/<b>"x'&y`,
      });
      try {
        const res = await fetchBytes(`${hostile.httpsUrl}/`, { ca: hostile.ca });
        const html = res.text();
        assert.equal(res.status, 200);
        assert.ok(!html.includes("<b>"), "a tag from the base URL reached the page");
        assert.ok(html.includes("https://ftc.example/&lt;b&gt;&quot;x&#39;\\&#39;&#39;&amp;y"), html);
        assert.match(html, /data-field="record-count">0</);
      } finally {
        await hostile.stop();
      }
    });
  });
}
