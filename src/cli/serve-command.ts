import { Command } from "commander";
import { DEMO_KEY } from "../access/api-keys.js";
import { optionHelp, type RawServeOptions, SERVE_OPTIONS, type ServeOption, serveConfig } from "../config.js";
import { redactPasswords } from "../domain/redact-passwords.js";
import { hasHeapLimit, serve, V8_SERVE_FLAGS } from "../main.js";
import { relativeToHere } from "./relative-to-here.js";

/** `ftcapi serve`: HTTPS on --port, a plain listener on --http-port, until SIGTERM or SIGINT. */
export function serveCommand(): Command {
  const command = new Command("serve")
    .description(
      "Serve the API over HTTPS (and a plain HTTP listener that refuses or, behind a proxy, serves)",
    )
    .action(runServe);
  for (const option of Object.values(SERVE_OPTIONS) as ServeOption[]) {
    command.option(option.flag, optionHelp(option));
    // Given after its positive form, so that neither sets a default: the variable still applies.
    if (option.negatedFlag) command.option(option.negatedFlag, `turn ${option.flag} off`);
  }
  return command;
}

/** Serves until SIGTERM or SIGINT; the primary process prints where and how to try it. */
async function runServe(flags: RawServeOptions): Promise<void> {
  const config = serveConfig(flags);
  const server = await serve(config, (line) => process.stdout.write(`${line}\n`));
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    if (server.isPrimary)
      process.stdout.write(`${signal}: answering requests on open connections, then stopping\n`);
    await server.stop();
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
  if (!server.isPrimary) return;
  const cert = config.tlsCert ? "" : `--cacert ${relativeToHere(server.certPath)} `;
  process.stdout.write(
    [
      `ftcapi is serving ${redactPasswords(config.db)}${config.workers > 1 ? ` with ${config.workers} workers` : ""}`,
      `  HTTPS:    ${server.httpsUrl}`,
      `  HTTP:     ${server.httpUrl}  (pages redirect to HTTPS; the API answers HTTPS_REQUIRED unless --trust-proxy and X-Forwarded-Proto: https)`,
      ...(server.metricsUrl
        ? [`  Metrics:  ${server.metricsUrl}  (Prometheus; not on the API's ports)`]
        : []),
      `  Demo key: ${DEMO_KEY}`,
      `  Try:      curl ${cert}-H 'X-Api-Key: ${DEMO_KEY}' '${server.httpsUrl}/v0/dnc-complaints?items_per_page=2'`,
      `  Notices:  curl -g ${cert}-H 'X-Api-Key: ${DEMO_KEY}' '${server.httpsUrl}/v0/hsr-early-termination-notices?sort=-date&page[limit]=2'`,
      ...(config.baseUrl === undefined ? [NO_BASE_URL_WARNING] : []),
      // Workers get the limit from the primary; one process can only be given it by whoever starts node.
      ...(config.workers === 1 && !hasHeapLimit() ? [NO_HEAP_LIMIT_WARNING] : []),
      "",
    ].join("\n"),
  );
}

/**
 * Printed at start without `--base-url`: links then name whatever Host each request sends, which
 * suits trying ftcapi on one's own machine but not a public address (docs/deployment.md, Operations).
 */
const NO_BASE_URL_WARNING =
  "Warning: no --base-url: links name the Host each request sends. In production set --base-url to the public address (docs/deployment.md).";

/**
 * Printed at start by a single process that node started without a heap limit: V8 then lets
 * garbage grow the heap far past what the caches hold before it collects (docs/deployment.md).
 */
const NO_HEAP_LIMIT_WARNING = `Warning: node runs without a heap limit, so under load its memory grows with uncollected garbage. Start it as node ${V8_SERVE_FLAGS.join(" ")} dist/cli/ftcapi.js serve (docs/deployment.md).`;
