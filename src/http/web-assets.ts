import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Where `npm run build` writes the web front (scripts/build-web.ts), from src/http or dist/http alike. */
export const WEB_BUILD_DIRECTORY = fileURLToPath(new URL("../../dist/web/", import.meta.url));

/** The URL path prefix of the built files. */
export const ASSETS_PATH = "/assets/";

/** The encodings an asset is kept in, each compressed once at build time. */
export type ContentCoding = "br" | "gzip" | "identity";

/** One built file, in memory in each of its encodings. */
export interface WebAsset {
  contentType: string;
  /** A strong validator of the content, the same for every encoding (each adds its own suffix). */
  hash: string;
  bodies: Partial<Record<ContentCoding, Buffer>> & { identity: Buffer };
}

/** One guide (a docs/*.md page) as an HTML fragment. */
export interface Guide {
  name: string;
  title: string;
  html: string;
}

interface Manifest {
  assets: Record<string, string>;
  guides: Array<{ name: string; title: string }>;
}

const CONTENT_TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
};

/**
 * The built web front, read once into memory at start (about 2 MB with its compressed twins):
 * hashed assets by file name, their URLs by logical name (`explore.js`), and the guides. When
 * the front was not built (`dist/web` missing), `built` is false and pages say how to build it.
 */
export class WebAssets {
  private constructor(
    readonly built: boolean,
    private readonly urls: ReadonlyMap<string, string>,
    private readonly files: ReadonlyMap<string, WebAsset>,
    private readonly guideList: readonly Guide[],
  ) {}

  /** Reads `directory` (as scripts/build-web.ts writes it); a directory without a manifest gives an unbuilt front. */
  static async load(directory: string = WEB_BUILD_DIRECTORY): Promise<WebAssets> {
    let manifest: Manifest;
    try {
      manifest = JSON.parse(await readFile(join(directory, "manifest.json"), "utf8")) as Manifest;
    } catch {
      return new WebAssets(false, new Map(), new Map(), []);
    }
    const urls = new Map<string, string>();
    const files = new Map<string, WebAsset>();
    for (const [logical, file] of Object.entries(manifest.assets)) {
      const path = join(directory, "assets", file);
      const identity = await readFile(path);
      const optional = async (suffix: string) => readFile(`${path}${suffix}`).catch(() => undefined);
      const [br, gzip] = await Promise.all([optional(".br"), optional(".gz")]);
      const bodies: WebAsset["bodies"] = { identity };
      if (br) bodies.br = br;
      if (gzip) bodies.gzip = gzip;
      files.set(file, {
        contentType: CONTENT_TYPES[extname(file)] ?? "application/octet-stream",
        hash: createHash("sha256").update(identity).digest("base64url").slice(0, 22),
        bodies,
      });
      urls.set(logical, `${ASSETS_PATH}${file}`);
    }
    const guides: Guide[] = [];
    for (const { name, title } of manifest.guides) {
      guides.push({ name, title, html: await readFile(join(directory, "guide", `${name}.html`), "utf8") });
    }
    return new WebAssets(true, urls, files, guides);
  }

  /** The URL of a built file by its logical name (`explore.js`), or undefined when not built. */
  url(logical: string): string | undefined {
    return this.urls.get(logical);
  }

  /** A built file by its hashed name (the last part of its URL). */
  file(name: string): WebAsset | undefined {
    return this.files.get(name);
  }

  /** Every logical name with its hashed file, for measuring a page's weight. */
  entries(): Array<[string, WebAsset]> {
    return [...this.urls].map(([logical, url]) => [logical, this.files.get(url.slice(ASSETS_PATH.length))!]);
  }

  guide(name: string): Guide | undefined {
    return this.guideList.find((guide) => guide.name === name);
  }

  guides(): readonly Guide[] {
    return this.guideList;
  }
}

/**
 * The encoding to answer with for an `Accept-Encoding` header: brotli, else gzip, when offered
 * and accepted (a `q=0` refuses), else none.
 */
export function chooseCoding(
  acceptEncoding: string | undefined,
  offered: readonly ContentCoding[],
): ContentCoding {
  const accepted = new Map<string, number>();
  for (const part of (acceptEncoding ?? "").split(",")) {
    const [name, ...parameters] = part.trim().toLowerCase().split(";");
    if (!name) continue;
    const q = parameters.map((parameter) => /^\s*q=([\d.]+)\s*$/.exec(parameter)?.[1]).find(Boolean);
    accepted.set(name, q === undefined ? 1 : Number(q));
  }
  const wildcard = accepted.get("*");
  const weight = (coding: string) => accepted.get(coding) ?? wildcard ?? 0;
  for (const coding of ["br", "gzip"] as const) {
    if (offered.includes(coding) && weight(coding) > 0) return coding;
  }
  return "identity";
}
