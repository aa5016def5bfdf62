import type { FastifyInstance } from "fastify";
import { ApiError } from "../domain/api-error.js";
import { statusDocument } from "../domain/collection-status.js";
import type { CollectionFreshness } from "./collection-freshness.js";
import { publicBaseUrl, queryPairs, withoutApiKey } from "./request-urls.js";

export const STATUS_PATH = "/v0/status";

/**
 * `GET /v0/status`, keyed like every endpoint: for each collection its record count, newest
 * record's created date, last update, last mirror run and when the next update is due.
 */
export function registerStatusRoutes(
  app: FastifyInstance,
  freshness: CollectionFreshness,
  baseUrl: string | undefined,
): void {
  app.get(STATUS_PATH, async (req, reply) => {
    const unexpected = queryPairs(req.url).find(([name]) => name !== "api_key");
    if (unexpected) {
      throw new ApiError("UNKNOWN_PARAMETER", {
        parameter: unexpected[0],
        detail: `The query parameter '${unexpected[0]}' is not supported by ${STATUS_PATH}; only api_key is.`,
      });
    }
    reply.type("application/json").header("Cache-Control", "no-cache");
    return statusDocument(
      await freshness.facts(),
      Date.now(),
      `${publicBaseUrl(req, baseUrl)}${withoutApiKey(req.url)}`,
    );
  });
}
