/**
 * `ftcapi mirror` against an upstream whose certificate it does not trust (issue 17, item 5): the
 * error says what to do (`--ca`, with the file to give), not only Node's `self-signed certificate`;
 * a `--ca` file that cannot be used is named with the option.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { loadOrCreateCertificate } from "../../src/http/tls-certificate.js";
import { runCli } from "../support/cli.js";
import { makeTempDirectory, startTestServer, type TestServer } from "../support/test-server.js";

describe("mirror from an upstream with a self-signed certificate", () => {
  let upstream: TestServer;
  let directory: string;

  before(async () => {
    upstream = await startTestServer();
    directory = await makeTempDirectory("ftcapi-mirror-ca-");
  });
  after(() => upstream?.stop());

  const mirror = (...more: string[]) =>
    runCli([
      "mirror",
      "--upstream",
      upstream.httpsUrl,
      "--api-key",
      "any-key",
      "--collection",
      "notices",
      "--retries",
      "0",
      "--db",
      join(directory, "copy.db"),
      ...more,
    ]);

  it("without --ca: exits 1 saying the certificate is self-signed and to trust it with --ca", async () => {
    const run = await mirror();
    assert.equal(run.code, 1, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stderr, /self-signed/);
    assert.match(run.stderr, /--ca FILE/);
    assert.match(run.stderr, /tls-cert\.pem/);
    assert.doesNotMatch(run.stderr, /^\s+at /m, "no stack trace");
  });

  it("with --ca naming another certificate: says the --ca certificates are not the upstream's", async () => {
    const other = await loadOrCreateCertificate(join(directory, "other"));
    const run = await mirror("--ca", other.certPath);
    assert.equal(run.code, 1, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stderr, /given with --ca are not the upstream's/);
  });

  it("with --ca naming a missing file: names --ca and the file", async () => {
    const missing = join(directory, "missing.pem");
    const run = await mirror("--ca", missing);
    assert.equal(run.code, 1, `${run.stdout}\n${run.stderr}`);
    assert.ok(run.stderr.includes(`--ca ${missing}: no such file`), run.stderr);
  });
});
