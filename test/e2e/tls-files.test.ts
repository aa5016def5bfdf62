/**
 * A `--tls-cert` or `--tls-key` that cannot serve (issue 17, item 5): `ftcapi serve` exits 1 with
 * one line naming the option, the file and what is wrong, instead of OpenSSL's bare
 * `PEM routines::no start line`, `key values mismatch` or `EISDIR`.
 */
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { loadOrCreateCertificate, type TlsFiles } from "../../src/http/tls-certificate.js";
import { runCli } from "../support/cli.js";
import { localServeFlags } from "../support/serve-process.js";
import { makeTempDirectory } from "../support/test-server.js";

describe("serve with TLS files it cannot use", () => {
  let directory: string;
  let first: TlsFiles;
  let second: TlsFiles;
  let garbage: string;
  let folder: string;

  before(async () => {
    directory = await makeTempDirectory("ftcapi-tls-");
    first = await loadOrCreateCertificate(join(directory, "first"));
    second = await loadOrCreateCertificate(join(directory, "second"));
    garbage = join(directory, "garbage.pem");
    await writeFile(garbage, "this is not PEM\n");
    folder = join(directory, "a-folder");
    await mkdir(folder);
  });

  /** Runs `serve` with the files and checks: exit 1, one line naming the option and the file, saying `reason`. */
  async function refused(cert: string, key: string, option: string, file: string, reason: RegExp) {
    const run = await runCli([
      "serve",
      ...localServeFlags(join(directory, "ftcapi.db"), "--tls-cert", cert, "--tls-key", key),
    ]);
    assert.equal(run.code, 1, `exit ${run.code}:\n${run.stdout}\n${run.stderr}`);
    const lines = run.stderr.split("\n").filter((line) => line.startsWith("ftcapi: "));
    assert.equal(lines.length, 1, `one error line:\n${run.stderr}`);
    const line = lines[0]!;
    assert.ok(line.includes(`${option} ${file}`), `names ${option} and ${file}: ${line}`);
    assert.match(line, reason);
    assert.doesNotMatch(run.stderr, /^\s+at /m, "no stack trace");
    assert.doesNotMatch(run.stdout, /ftcapi is serving/);
  }

  it("a certificate file that is not PEM names --tls-cert and the file", async () => {
    await refused(garbage, first.keyPath, "--tls-cert", garbage, /no PEM certificate/);
  });

  it("a key file that is not PEM names --tls-key and the file", async () => {
    await refused(first.certPath, garbage, "--tls-key", garbage, /no PEM private key/);
  });

  it("a directory given as the key names --tls-key and says it is a directory", async () => {
    await refused(first.certPath, folder, "--tls-key", folder, /is a directory/);
  });

  it("a missing certificate file names --tls-cert and says so", async () => {
    const missing = join(directory, "missing.pem");
    await refused(missing, first.keyPath, "--tls-cert", missing, /no such file/);
  });

  it("a key that does not match the certificate names both and says so", async () => {
    await refused(first.certPath, second.keyPath, "--tls-key", second.keyPath, /does not match/);
    await refused(
      first.certPath,
      second.keyPath,
      "--tls-cert",
      first.certPath,
      /does not match the certificate/,
    );
  });

  it("swapped files say they look swapped", async () => {
    await refused(first.keyPath, first.certPath, "--tls-cert", first.keyPath, /swapped/);
  });
});
