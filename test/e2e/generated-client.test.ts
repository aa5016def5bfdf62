/**
 * A client generated from the served document works (issue 17, item 1): openapi-typescript
 * generates types from a real `ftcapi serve`'s `/openapi.json`; a small openapi-fetch client
 * running the README's examples of both collections type-checks under `tsc --strict` and runs
 * against that server, every answer checked against the document.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import openapiTS, { astToString } from "openapi-typescript";
import { REPO_ROOT } from "../support/cli.js";
import { fetchRaw } from "../support/https-client.js";
import { servedContract } from "../support/openapi-contract.js";
import { localServeFlags, type ServeProcess, startServeProcess } from "../support/serve-process.js";
import { makeTempDirectory } from "../support/test-server.js";

const run = promisify(execFile);

/** The client, as a user would write it from the README's examples. */
const CLIENT = `import createClient from "openapi-fetch";
import type { paths } from "./ftcapi.js";

// The lists also answer CSV and NDJSON (exports): a client reading JSON names the media types it reads.
const client = createClient<paths, "application/json" | "application/vnd.api+json">({ baseUrl: process.argv[2]!, headers: { "X-Api-Key": "DEMO_KEY" } });

const ohio = await client.GET("/v0/dnc-complaints", {
  params: { query: { state: "Ohio", created_date_from: '"2026-11-01 08:00:00"', created_date_to: '"2026-11-02"' } },
});
const byNumber = await client.GET("/v0/dnc-complaints", { params: { query: { company_phone_number: "2025550123" } } });
const one = await client.GET("/v0/dnc-complaints/{id}", { params: { path: { id: "0123456789abcdef0123456789abcdef" } } });
const capital = await client.GET("/v0/hsr-early-termination-notices", {
  params: {
    query: {
      "filter[title][operator]": "CONTAINS",
      "filter[title][value]": "capital partners",
      sort: "-date",
      "page[limit]": 10,
    },
  },
});
const totals: number[] = [ohio.data!.meta["record-total"], byNumber.data!.meta["record-total"], capital.data!.meta.count];
// A 404 is the collection's JSON:API document; other errors may be the gateway's {"error": ...}.
const notFound: string | undefined = one.error && "errors" in one.error ? one.error.errors[0]?.code : undefined;
console.log(JSON.stringify({ statuses: [ohio.response.status, byNumber.response.status, one.response.status, capital.response.status], totals, notFound }));
`;

describe("a client generated from /openapi.json", () => {
  let server: ServeProcess;
  let directory: string;

  before(async () => {
    const data = await makeTempDirectory();
    server = await startServeProcess(localServeFlags(join(data, "ftcapi.db")));
    // Under node_modules, so that the client resolves openapi-fetch as a user's project would.
    directory = join(REPO_ROOT, "node_modules", ".cache", `ftcapi-generated-client-${process.pid}`);
    await mkdir(directory, { recursive: true });
  });
  after(async () => {
    await server?.stop();
    if (directory) await rm(directory, { recursive: true, force: true });
  });

  it("type-checks under --strict and runs the README's examples against the server", async () => {
    const ca = await readFile(server.certPath!, "utf8");
    const res = await fetchRaw(`${server.httpsUrl}/openapi.json`, { ca });
    assert.equal(res.status, 200, res.body);
    const document = res.json();
    assert.equal(servedContract().violation({ method: "GET", path: "/openapi.json", ...res }), undefined);
    await writeFile(join(directory, "ftcapi.ts"), astToString(await openapiTS(document)));
    await writeFile(join(directory, "client.ts"), CLIENT);
    const tsc = join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc");
    await run(
      process.execPath,
      [
        tsc,
        "--strict",
        "--noEmit",
        "--target",
        "es2022",
        "--module",
        "nodenext",
        "--moduleResolution",
        "nodenext",
        "--skipLibCheck",
        join(directory, "client.ts"),
      ],
      { cwd: directory },
    ).catch((err: { stdout: string }) => assert.fail(`tsc --strict refused the client:\n${err.stdout}`));
    await writeFile(join(directory, "package.json"), '{"type":"module"}');
    const { stdout } = await run(
      process.execPath,
      ["--import", import.meta.resolve("tsx"), join(directory, "client.ts"), server.httpsUrl],
      {
        cwd: directory,
        env: { ...process.env, NODE_EXTRA_CA_CERTS: server.certPath! },
      },
    );
    const result = JSON.parse(stdout.trim().split("\n").at(-1)!);
    assert.deepEqual(result.statuses, [200, 200, 404, 200], stdout);
    assert.ok(
      result.totals.every((total: number) => Number.isInteger(total)),
      stdout,
    );
    assert.equal(result.notFound, "RECORD_NOT_FOUND", stdout);
  });
});
