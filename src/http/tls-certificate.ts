import { createPrivateKey, type KeyObject, X509Certificate } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createSecureContext } from "node:tls";
import { generate } from "selfsigned";
import { fileReadProblem } from "../domain/file-read-problem.js";
import { MILLISECONDS_PER_DAY, MILLISECONDS_PER_MINUTE } from "../domain/time.js";

export interface TlsFiles {
  cert: string;
  key: string;
  certPath: string;
  keyPath: string;
  /** True when the certificate was made by this call. */
  created: boolean;
}

/**
 * Reads the self-signed certificate kept in `directory`, or makes one (for localhost, 127.0.0.1
 * and ::1, valid ten years) and keeps it there, so clients can pin it across restarts.
 */
export async function loadOrCreateCertificate(directory: string): Promise<TlsFiles> {
  const certPath = join(directory, "tls-cert.pem");
  const keyPath = join(directory, "tls-key.pem");
  if (existsSync(certPath) && existsSync(keyPath)) {
    return {
      cert: await readFile(certPath, "utf8"),
      key: await readFile(keyPath, "utf8"),
      certPath,
      keyPath,
      created: false,
    };
  }
  const notBeforeDate = new Date(Date.now() - MILLISECONDS_PER_MINUTE);
  const notAfterDate = new Date(notBeforeDate.getTime() + 10 * 365 * MILLISECONDS_PER_DAY);
  const pems = await generate([{ name: "commonName", value: "localhost" }], {
    keyType: "ec",
    curve: "P-256",
    algorithm: "sha256",
    notBeforeDate,
    notAfterDate,
    extensions: [
      { name: "basicConstraints", cA: true, critical: true },
      { name: "keyUsage", digitalSignature: true, keyCertSign: true, critical: true },
      { name: "extKeyUsage", serverAuth: true },
      {
        name: "subjectAltName",
        altNames: [
          { type: 2, value: "localhost" },
          { type: 7, ip: "127.0.0.1" },
          { type: 7, ip: "::1" },
        ],
      },
    ],
  });
  await mkdir(directory, { recursive: true });
  await writeFile(keyPath, pems.private, { mode: 0o600 });
  await writeFile(certPath, pems.cert);
  return { cert: pems.cert, key: pems.private, certPath, keyPath, created: true };
}

/**
 * Reads an operator's certificate (`--tls-cert`) and key (`--tls-key`) and checks that they make a
 * usable pair before any listener starts. A file that cannot be read, holds no PEM certificate or
 * private key, holds a key protected by a passphrase, or a key that does not match the certificate
 * is refused with a `TlsFileError` whose one-line message names the option, the file and what is
 * wrong (never OpenSSL's bare `PEM routines::no start line` or `key values mismatch`).
 */
export async function loadCertificate(certPath: string, keyPath: string): Promise<TlsFiles> {
  const cert = await readTlsFile("--tls-cert", certPath, "certificate");
  const key = await readTlsFile("--tls-key", keyPath, "private key");
  const certificate = parseCertificate(cert, certPath, key);
  const privateKey = parsePrivateKey(key, keyPath, cert);
  if (!certificate.checkPrivateKey(privateKey)) {
    throw new TlsFileError(
      `--tls-key ${keyPath} does not match the certificate in --tls-cert ${certPath} (key values mismatch): give the key the certificate was issued for`,
    );
  }
  try {
    createSecureContext({ cert, key });
  } catch (err) {
    throw new TlsFileError(
      `--tls-cert ${certPath} and --tls-key ${keyPath} cannot be used together: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  return { cert, key, certPath, keyPath, created: false };
}

/** A `--tls-cert` or `--tls-key` file that cannot serve; the message names the option and the file. */
export class TlsFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TlsFileError";
  }
}

type TlsOption = "--tls-cert" | "--tls-key";

/** The file's text, or a `TlsFileError` saying why it cannot be read. */
async function readTlsFile(option: TlsOption, path: string, holds: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (err) {
    throw new TlsFileError(`${option} ${path}: ${fileReadProblem(err, `PEM ${holds}`)}`);
  }
}

/** The first certificate of the `--tls-cert` file, or a `TlsFileError` saying what the file holds instead. */
function parseCertificate(cert: string, certPath: string, key: string): X509Certificate {
  if (!cert.includes("-----BEGIN CERTIFICATE-----")) {
    const swapped =
      /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(cert) && key.includes("-----BEGIN CERTIFICATE-----");
    throw new TlsFileError(
      `--tls-cert ${certPath}: no PEM certificate in it (no '-----BEGIN CERTIFICATE-----' line)${swapped ? "; it holds a private key: are --tls-cert and --tls-key swapped?" : ""}`,
    );
  }
  try {
    return new X509Certificate(cert);
  } catch (err) {
    throw new TlsFileError(
      `--tls-cert ${certPath}: the PEM certificate cannot be read (${err instanceof Error ? err.message : String(err)})`,
    );
  }
}

/** The `--tls-key` file's private key, or a `TlsFileError` saying what is wrong with it. */
function parsePrivateKey(key: string, keyPath: string, cert: string): KeyObject {
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(key)) {
    const swapped = key.includes("-----BEGIN CERTIFICATE-----") && /PRIVATE KEY-----/.test(cert);
    throw new TlsFileError(
      `--tls-key ${keyPath}: no PEM private key in it (no '-----BEGIN ... PRIVATE KEY-----' line)${swapped ? "; it holds a certificate: are --tls-cert and --tls-key swapped?" : ""}`,
    );
  }
  try {
    return createPrivateKey(key);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new TlsFileError(
      code === "ERR_MISSING_PASSPHRASE" || key.includes("ENCRYPTED")
        ? `--tls-key ${keyPath}: the private key is encrypted; give it without a passphrase (openssl pkey -in ${keyPath} -out plain-key.pem)`
        : `--tls-key ${keyPath}: the PEM private key cannot be read (${err instanceof Error ? err.message : String(err)})`,
    );
  }
}
