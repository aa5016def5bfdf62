import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ApiError } from "../domain/api-error.js";
import { statusDocument } from "../domain/collection-status.js";
import { openApiDocument } from "../domain/openapi-document.js";
import type { CollectionFreshness } from "./collection-freshness.js";
import { docsPage, explorePage, guidePage } from "./docs-pages.js";
import { caCertPathFor } from "./example-request.js";
import { landingPage } from "./landing-page.js";
import { publicBaseUrl } from "./request-urls.js";
import { ASSETS_PATH, type ContentCoding, chooseCoding, type WebAssets } from "./web-assets.js";

export interface WebOptions {
  assets: WebAssets;
  freshness: CollectionFreshness;
  baseUrl: string | undefined;
  /** The self-signed certificate's absolute path, for `--cacert` in the examples (see AppDeps). */
  selfSignedCertPath?: string;
}

/**
 * The pages' Content-Security-Policy: scripts, styles, images and requests from this origin only,
 * no inline script or style, no framing, forms posting only here.
 */
export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/**
 * /docs only: Redoc injects its styles as `<style>` elements (styled-components) and runs its
 * search in a worker made from a Blob, so this page also allows inline styles and blob: workers.
 */
export const DOCS_CSP = `${PAGE_CSP.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'")}; worker-src blob:`;

/** A hashed asset never changes: a year, immutable. */
const ASSET_CACHE = "public, max-age=31536000, immutable";

/**
 * The web front: `/` (landing page, figures of `/v0/status`), `/docs` (API reference),
 * `/docs/guide[/NAME]` (docs/*.md), `/explore` (the explorer) and `/assets/FILE` (hashed files,
 * precompressed, cached for a year, ETag/304). No key is needed (they are pages, as `/signup`);
 * over plain HTTP they are redirected to HTTPS (gateway access `page`). Pages are same-origin:
 * no CORS headers. Pages ignore their query (the explorer reads it in the browser) and never
 * echo it.
 */
export function registerWebRoutes(app: FastifyInstance, options: WebOptions): void {
  const { assets } = options;
  const config = { access: "page", cors: false } as const;

  app.get("/", { config }, async (req, reply) => {
    const status = statusDocument(
      await options.freshness.facts(),
      Date.now(),
      `${publicBaseUrl(req, options.baseUrl)}/v0/status`,
    );
    const html = landingPage(assets, status, {
      baseUrl: publicBaseUrl(req, options.baseUrl),
      caCertPath: caCertPathFor(req, options.selfSignedCertPath),
    });
    return sendPage(req, reply, html, PAGE_CSP);
  });

  app.get("/docs", { config }, async (req, reply) =>
    sendPage(req, reply, docsPage(assets, openApiDocument(publicBaseUrl(req, options.baseUrl))), DOCS_CSP),
  );

  const guide = async (name: string, req: FastifyRequest, reply: FastifyReply) => {
    const found = assets.guide(name);
    if (found === undefined) throw new ApiError("NOT_FOUND");
    return sendPage(req, reply, guidePage(assets, found), PAGE_CSP);
  };
  app.get("/docs/guide", { config }, (req, reply) => guide("api", req, reply));
  app.get<{ Params: { name: string } }>("/docs/guide/:name", { config }, (req, reply) =>
    guide(req.params.name, req, reply),
  );

  app.get("/explore", { config }, async (req, reply) => sendPage(req, reply, explorePage(assets), PAGE_CSP));

  app.get<{ Params: { file: string } }>(`${ASSETS_PATH}:file`, { config }, async (req, reply) => {
    const asset = assets.file(req.params.file);
    if (asset === undefined) throw new ApiError("NOT_FOUND");
    const coding = chooseCoding(req.headers["accept-encoding"], Object.keys(asset.bodies) as ContentCoding[]);
    const etag = `"${asset.hash}${coding === "identity" ? "" : `-${coding}`}"`;
    reply
      .header("Content-Type", asset.contentType)
      .header("Cache-Control", ASSET_CACHE)
      .header("ETag", etag)
      .header("Vary", "Accept-Encoding")
      .header("X-Content-Type-Options", "nosniff");
    if (matchesEtag(req.headers["if-none-match"], etag)) return reply.code(304).send();
    if (coding !== "identity") reply.header("Content-Encoding", coding);
    return reply.send(asset.bodies[coding]);
  });
}

/** True when an `If-None-Match` header names `etag` (or `*`), weak or strong. */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(",").some((candidate) => {
    const tag = candidate.trim().replace(/^W\//, "");
    return tag === "*" || tag === etag;
  });
}

/**
 * An HTML page with its security headers, compressed for the client (brotli or gzip, as it
 * accepts). Pages are small and made per request, so they are compressed now, at a fast level.
 */
function sendPage(req: FastifyRequest, reply: FastifyReply, html: string, csp: string): FastifyReply {
  const coding = chooseCoding(req.headers["accept-encoding"], ["br", "gzip"]);
  const bytes = Buffer.from(html, "utf8");
  reply
    .header("Content-Type", "text/html; charset=utf-8")
    .header("Content-Security-Policy", csp)
    .header("X-Content-Type-Options", "nosniff")
    .header("Referrer-Policy", "no-referrer")
    .header("Cache-Control", "no-cache")
    .header("Vary", "Accept-Encoding");
  if (coding === "identity") return reply.send(bytes);
  reply.header("Content-Encoding", coding);
  return reply.send(
    coding === "br"
      ? brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } })
      : gzipSync(bytes, { level: 6 }),
  );
}
