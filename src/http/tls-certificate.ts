import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { generate } from "selfsigned";
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

/** Reads an operator's certificate and key. */
export async function loadCertificate(certPath: string, keyPath: string): Promise<TlsFiles> {
  return {
    cert: await readFile(certPath, "utf8"),
    key: await readFile(keyPath, "utf8"),
    certPath,
    keyPath,
    created: false,
  };
}
