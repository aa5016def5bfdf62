import type { FastifyInstance } from "fastify";
import { openApiDocument } from "../domain/openapi-document.js";
import { publicBaseUrl } from "./request-urls.js";

export const OPENAPI_PATH = "/openapi.json";

/** The API's OpenAPI description: public (no key, as a sign-up page is), over HTTPS like the rest. */
export function registerOpenApiRoutes(app: FastifyInstance, baseUrl: string | undefined): void {
  app.get(OPENAPI_PATH, { config: { access: "https" } }, async (req) =>
    openApiDocument(publicBaseUrl(req, baseUrl)),
  );
}
