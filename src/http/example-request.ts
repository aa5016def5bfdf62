import type { FastifyRequest } from "fastify";

/** Where a page's example requests go. */
export interface ExampleRequest {
  /** The server's absolute address (`https://host:port`, or the public base URL), without a trailing slash. */
  baseUrl: string;
  /** The self-signed certificate's path, given to curl as `--cacert`; undefined for a trusted certificate. */
  caCertPath?: string;
}

/**
 * A curl command that works as copied: at the server's absolute address, with `--cacert` when the
 * certificate is the self-signed one, the key in the `X-Api-Key` header. `pathAndQuery` starts with `/`.
 */
export function curlCommand(example: ExampleRequest, key: string, pathAndQuery: string): string {
  const cacert = example.caCertPath === undefined ? "" : `--cacert ${shellQuoted(example.caCertPath)} `;
  return `curl ${cacert}-H ${shellQuoted(`X-Api-Key: ${key}`)} ${shellQuoted(`${example.baseUrl}${pathAndQuery}`)}`;
}

/** A word as the shell reads it: bare when it holds only safe characters, else single-quoted. */
export function shellQuoted(text: string): string {
  return /^[\w./@%+=:,-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`;
}

/**
 * The certificate path for examples shown to this request: only a client that reached this
 * server's own TLS listener sees the self-signed certificate; behind a proxy it sees the proxy's.
 */
export function caCertPathFor(
  req: FastifyRequest,
  selfSignedCertPath: string | undefined,
): string | undefined {
  return (req.socket as { encrypted?: boolean }).encrypted === true ? selfSignedCertPath : undefined;
}
