/**
 * The layer rule and the absence of import cycles, read from the sources themselves: every
 * relative import of every .ts file under src/ (static `import ... from`, `export ... from`, and
 * `import("...")` with a literal). Type-only imports (`import type`) count like any other: a type
 * that crosses a layer or closes a cycle ties the files together as much as a value does.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, it } from "node:test";
import { REPO_ROOT } from "../support/cli.js";

const SRC = join(REPO_ROOT, "src");
const STATIC = /^\s*(?:import|export)\s+(?:type\s+)?(?:[\w*${}\s,]+?\s+from\s+)?["']([^"']+)["']/gm;
const DYNAMIC = /\bimport\(\s*["']([^"']+)["']\s*\)/g;

/**
 * What each part of src/ may import besides itself (a part is a folder, or config.ts / main.ts):
 * the README's domain <- store <- access <- http <- main. Nothing imports cli; cli reaches main
 * (and through it http) only to serve.
 */
const MAY_IMPORT: Record<string, string[]> = {
  domain: [],
  store: ["domain"],
  access: ["domain", "store"],
  http: ["domain", "store", "access"],
  ingest: ["domain", "store"],
  cli: ["domain", "store", "access", "ingest", "config"],
  config: ["domain", "store", "access", "http", "ingest", "main"],
  main: ["domain", "store", "access", "http", "ingest", "config"],
};
const EXCEPTIONS = new Set(["cli/serve-command.ts -> main.ts"]);

const files = readdirSync(SRC, { recursive: true, encoding: "utf8" })
  .filter((file) => file.endsWith(".ts"))
  .map((file) => file.split("\\").join("/"))
  .sort();
const partOf = (file: string) => file.split("/")[0]!.replace(/\.ts$/, "");

/** Each file's relative imports: the specifier as written and the src/ file it names (undefined: none). */
const imports = new Map(
  files.map((file) => {
    const text = readFileSync(join(SRC, file), "utf8");
    const specifiers = [...text.matchAll(STATIC), ...text.matchAll(DYNAMIC)].map((match) => match[1]!);
    const edges = specifiers
      .filter((specifier) => specifier.startsWith("."))
      .map((specifier) => {
        const base = resolve(dirname(join(SRC, file)), specifier);
        const found = [base.replace(/\.js$/, ".ts"), `${base}.ts`, join(base, "index.ts"), base].find(
          (path) => statSync(path, { throwIfNoEntry: false })?.isFile(),
        );
        return { specifier, target: found && relative(SRC, found).split("\\").join("/") };
      });
    return [file, edges] as const;
  }),
);

describe("the layers of src/", () => {
  it("every import stays inside the layer rule (docs: README, Development)", () => {
    const violations: string[] = [];
    for (const [file, edges] of imports) {
      for (const { specifier, target } of edges) {
        if (target === undefined) violations.push(`src/${file}: "${specifier}" names no file`);
        else if (target.startsWith("..")) continue;
        else if (partOf(target) === partOf(file) || EXCEPTIONS.has(`${file} -> ${target}`)) continue;
        else if (!MAY_IMPORT[partOf(file)]?.includes(partOf(target)))
          violations.push(`src/${file}: "${specifier}" (${partOf(file)} may not import ${partOf(target)})`);
      }
    }
    assert.deepEqual(violations, [], `layer violations:\n  ${violations.join("\n  ")}`);
  });

  // A depth-first walk: each loop it closes is reported once, from the file where the walk entered it.
  it("no file imports itself again through others (type-only imports included)", () => {
    const cycles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const path: Array<{ file: string; specifier: string }> = [];
    const visit = (file: string) => {
      state.set(file, "open");
      for (const { specifier, target } of imports.get(file) ?? []) {
        if (target === undefined || !imports.has(target)) continue;
        path.push({ file, specifier });
        if (state.get(target) === "open") {
          const loop = path.slice(path.findIndex((step) => step.file === target));
          cycles.push(
            `${loop.map((step) => `src/${step.file} ("${step.specifier}")`).join(" -> ")} -> src/${target}`,
          );
        } else if (!state.has(target)) visit(target);
        path.pop();
      }
      state.set(file, "done");
    };
    for (const file of files) if (!state.has(file)) visit(file);
    assert.deepEqual(cycles, [], `import cycles:\n  ${cycles.join("\n  ")}`);
  });
});
