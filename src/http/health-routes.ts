import type { FastifyInstance } from "fastify";

export const HEALTH_PREFIX = "/health/";

/**
 * Probes for load balancers and orchestrators, answered without HTTPS or a key:
 * `GET /health/live` (the process answers) and `GET /health/ready` (every database it uses takes
 * a query within a second; 503 otherwise, so traffic goes elsewhere until it does).
 */
export function registerHealthRoutes(app: FastifyInstance, ready: () => Promise<boolean>): void {
  app.get(`${HEALTH_PREFIX}live`, { config: { access: "open" } }, async () => ({ status: "live" }));
  app.get(`${HEALTH_PREFIX}ready`, { config: { access: "open" } }, async (_req, reply) => {
    if (await ready()) return { status: "ready" };
    return reply.code(503).header("Retry-After", "1").send({ status: "not ready" });
  });
}
