/**
 * Builds the web front into `dist/web` (run by `npm run build`): everything the pages load comes
 * from this folder, bundled from npm packages here, so the server needs no network and no CDN.
 *
 * - `assets/`: the explorer and the docs starter (TypeScript under `web/`, bundled and minified by
 *   esbuild), the site's and the explorer's CSS, and Redoc's standalone bundle; every name carries
 *   a hash of its content (served with long immutable caching), and every file has `.gz` and `.br`
 *   twins compressed here once at their best levels (node:zlib).
 * - `guide/NAME.html`: each `docs/NAME.md` rendered to an HTML fragment (marked), its links to
 *   other guides pointed at `/docs/guide/NAME`.
 * - `manifest.json`: the logical name of each asset (`explore.js`) to its hashed file, and the guides.
 *
 * Redoc's bundle names one remote file, its "API docs by Redocly" logo on a CDN: it is replaced by
 * an empty inline image, and the build fails if that address is not found exactly once (a new Redoc
 * could load something else from outside; look before changing the check).
 */
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import { build } from "esbuild";
import { Marked, type Tokens } from "marked";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const OUT = join(ROOT, "dist", "web");
const ASSETS = join(OUT, "assets");
const require = createRequire(import.meta.url);

const REDOC_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg";
const EMPTY_IMAGE = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'/%3E";

/** What `manifest.json` holds (read by src/http/web-assets.ts). */
export interface WebManifest {
  /** Logical name (`explore.js`, `explore.css`, `site.css`, `docs.js`, `redoc.js`) to file name under `assets/`. */
  assets: Record<string, string>;
  /** The guides under `guide/`, api first. */
  guides: Array<{ name: string; title: string }>;
}

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

async function main(): Promise<void> {
  const started = performance.now();
  await rm(OUT, { recursive: true, force: true });
  await mkdir(ASSETS, { recursive: true });
  const assets: Record<string, string> = {};

  const result = await build({
    entryPoints: {
      explore: join(ROOT, "web/explore/main.ts"),
      docs: join(ROOT, "web/docs/start-redoc.ts"),
      site: join(ROOT, "web/styles/site.css"),
    },
    bundle: true,
    minify: true,
    format: "esm",
    target: ["es2020", "chrome100", "firefox100", "safari15"],
    outdir: ASSETS,
    entryNames: "[name]-[hash]",
    assetNames: "[name]-[hash]",
    metafile: true,
    legalComments: "eof",
    logLevel: "warning",
  });
  for (const [file, output] of Object.entries(result.metafile.outputs)) {
    if (output.entryPoint === undefined && !file.endsWith(".css")) continue;
    const name = basename(file);
    const logical = name.replace(/-[A-Z0-9]{8}\./, ".");
    assets[logical] = name;
  }

  const redocFile = require.resolve("redoc/bundles/redoc.standalone.js");
  const redoc = await readFile(redocFile, "utf8");
  const mentions = redoc.split(REDOC_LOGO).length - 1;
  if (mentions !== 1) {
    throw new Error(
      `Redoc's bundle names ${REDOC_LOGO} ${mentions} times (expected once): check it for other remote files before serving it.`,
    );
  }
  assets["redoc.js"] = await writeHashed("redoc.standalone", ".js", redoc.replace(REDOC_LOGO, EMPTY_IMAGE));

  const guides = await renderGuides();
  for (const name of await readdir(ASSETS)) await precompress(join(ASSETS, name));
  const manifest: WebManifest = { assets, guides };
  await writeFile(join(OUT, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stderr.write(`web front built into ${relative(ROOT, OUT)} in ${seconds} s\n`);
}

async function writeHashed(stem: string, extension: string, text: string): Promise<string> {
  const hash = createHash("sha256").update(text).digest("hex").slice(0, 12);
  const name = `${stem}-${hash}${extension}`;
  await writeFile(join(ASSETS, name), text);
  return name;
}

async function precompress(file: string): Promise<void> {
  const bytes = await readFile(file);
  await writeFile(`${file}.gz`, await gzipAsync(bytes, { level: 9 }));
  await writeFile(
    `${file}.br`,
    await brotliAsync(bytes, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      },
    }),
  );
}

/** docs/*.md as HTML fragments under guide/; the API guide (api.md) first. */
async function renderGuides(): Promise<WebManifest["guides"]> {
  const folder = join(ROOT, "docs");
  const names = (await readdir(folder))
    .filter((name) => name.endsWith(".md"))
    .map((name) => name.slice(0, -3))
    .sort((left, right) => Number(right === "api") - Number(left === "api") || left.localeCompare(right));
  await mkdir(join(OUT, "guide"), { recursive: true });
  const guides: WebManifest["guides"] = [];
  for (const name of names) {
    const markdown = await readFile(join(folder, `${name}.md`), "utf8");
    const title = /^#\s+(.+)$/m.exec(markdown)?.[1]?.replace(/`/g, "") ?? name;
    await writeFile(join(OUT, "guide", `${name}.html`), renderMarkdown(markdown, new Set(names)));
    guides.push({ name, title });
  }
  return guides;
}

/**
 * Markdown to HTML with GitHub's heading anchors (so `api.md#counts-...` links keep working) and
 * links to sibling guides rewritten to their pages; images of docs/images are not served, so
 * they are named in words.
 */
function renderMarkdown(markdown: string, guideNames: ReadonlySet<string>): string {
  const slugs = new Map<string, number>();
  const marked = new Marked({
    gfm: true,
    renderer: {
      heading({ tokens, depth }: Tokens.Heading) {
        const inner = this.parser.parseInline(tokens);
        const base = inner
          .replace(/<[^>]+>/g, "")
          .replace(/&[a-z]+;|&#\d+;/g, "")
          .toLowerCase()
          .replace(/[^\p{L}\p{N}\s_-]/gu, "")
          .replace(/\s/g, "-");
        const seen = slugs.get(base) ?? 0;
        slugs.set(base, seen + 1);
        const id = seen === 0 ? base : `${base}-${seen}`;
        return `<h${depth} id="${id}">${inner}</h${depth}>\n`;
      },
      link({ href, title, tokens }: Tokens.Link) {
        const text = this.parser.parseInline(tokens);
        const match = /^([a-z0-9-]+)\.md(#.*)?$/.exec(href);
        const target =
          match && guideNames.has(match[1]!)
            ? `/docs/guide${match[1] === "api" ? "" : `/${match[1]}`}${match[2] ?? ""}`
            : href;
        const titleAttribute = title ? ` title="${escapeAttribute(title)}"` : "";
        return `<a href="${escapeAttribute(target)}"${titleAttribute}>${text}</a>`;
      },
      image({ text }: Tokens.Image) {
        return `<em>(${escapeAttribute(text)}: a picture in the repository's docs/images)</em>`;
      },
    },
  });
  return marked.parse(markdown, { async: false });
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}

await mkdir(dirname(OUT), { recursive: true });
await main();
