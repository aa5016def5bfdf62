import formbody from "@fastify/formbody";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { RateLimiter } from "../access/rate-limiter.js";
import { ApiError } from "../domain/api-error.js";
import { parseSignup, type Signup } from "../domain/signup-form.js";
import { limitHeaders } from "./gateway-hooks.js";
import { signupDonePage, signupFormPage, signupLimitedPage } from "./signup-page.js";

export interface SignupOptions {
  /** Issues a key; the plain key is returned once. */
  issueKey: (signup: Signup) => Promise<string>;
  limiter: RateLimiter;
  /** Keys one client address may obtain an hour. */
  signupsPerHour: number;
}

/**
 * `GET /signup`, a plain accessible form, and `POST /signup` (form or JSON), which answers with the
 * key once. Sign-ups are limited per client address, counted before validation so that nobody can
 * probe or mint keys in bulk.
 */
export async function registerSignupRoutes(app: FastifyInstance, options: SignupOptions): Promise<void> {
  await app.register(async (scope) => {
    await scope.register(formbody, { bodyLimit: 16_384 });

    scope.get("/signup", { config: { access: "https" } }, async (_req, reply) =>
      reply.type("text/html; charset=utf-8").send(signupFormPage()),
    );

    scope.post("/signup", { bodyLimit: 16_384, config: { access: "https" } }, async (req, reply) => {
      const wantsJson = isJson(req);
      const decision = await options.limiter.checkSubject(`signup:${req.ip}`, options.signupsPerHour, 3600);
      reply.headers(limitHeaders(decision));
      if (!decision.allowed) {
        if (!wantsJson) {
          return reply
            .code(429)
            .header("Retry-After", String(decision.resetSeconds))
            .type("text/html; charset=utf-8")
            .send(signupLimitedPage(decision.resetSeconds));
        }
        throw new ApiError("OVER_RATE_LIMIT", {
          vars: { contactUrl: "/signup" },
          headers: { "Retry-After": String(decision.resetSeconds) },
        });
      }
      let signup: Signup;
      try {
        signup = parseSignup(req.body ?? {});
      } catch (err) {
        if (wantsJson || !(err instanceof ApiError)) throw err;
        const values =
          typeof req.body === "object" && req.body !== null ? (req.body as Record<string, string>) : {};
        return reply
          .code(400)
          .type("text/html; charset=utf-8")
          .send(
            signupFormPage({ values, error: { field: err.details.pointer?.slice(1), message: err.message } }),
          );
      }
      const key = await options.issueKey(signup);
      reply.code(201).header("Cache-Control", "no-store");
      if (wantsJson) return { api_key: key, email: signup.email };
      return reply.type("text/html; charset=utf-8").send(signupDonePage(key, signup.email));
    });
  });
}

function isJson(req: FastifyRequest): boolean {
  return String(req.headers["content-type"] ?? "").includes("json");
}
