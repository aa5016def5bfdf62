import formbody from "@fastify/formbody";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { RateLimitDecision, RateLimiter } from "../access/rate-limiter.js";
import { ApiError } from "../domain/api-error.js";
import { parseSignup, SIGNUP_FIELDS, type Signup } from "../domain/signup-form.js";
import { SECONDS_PER_HOUR } from "../domain/time.js";
import { caCertPathFor } from "./example-request.js";
import { limitHeaders, overRateLimitError } from "./gateway-hooks.js";
import { publicBaseUrl } from "./request-urls.js";
import { signupDonePage, signupFormPage, signupLimitedPage } from "./signup-page.js";

export interface SignupOptions {
  /** Issues a key; the plain key is returned once. */
  issueKey: (signup: Signup) => Promise<string>;
  limiter: RateLimiter;
  /** Keys one client address may obtain an hour. */
  signupsPerHour: number;
  /** The public base URL, if configured: its origin is the only one sign-ups are accepted from. */
  baseUrl: string | undefined;
  /** The self-signed certificate's absolute path (see AppDeps), for `--cacert` in the example request. */
  selfSignedCertPath?: string;
}

/** The sign-up page and form. */
export const SIGNUP_PATH = "/signup";
const HTML = "text/html; charset=utf-8";

/**
 * `GET /signup`, a plain accessible form, and `POST /signup` (form or JSON), which answers with the
 * key once. Sign-up is same-origin only: its routes send no CORS headers (a preflight from another
 * site gets none, so browsers keep other sites from reading keys), and a POST whose `Origin` is not
 * this server's own (the base URL's origin if configured, else the request's scheme and host) or
 * that says `Sec-Fetch-Site: cross-site` is refused with 403 CROSS_SITE_SIGNUP before its body is
 * read. Requests without `Origin` (scripts, curl) are accepted. Then the input is validated (400
 * INVALID_FIELD), and only a valid sign-up from this site is counted against the client address's
 * hourly sign-ups (429 beyond them) and issued a key.
 */
export async function registerSignupRoutes(app: FastifyInstance, options: SignupOptions): Promise<void> {
  await app.register(async (scope) => {
    await scope.register(formbody, { bodyLimit: 16_384 });
    // `cors: false`: @fastify/cors, registered app-wide, leaves these routes alone.
    const config = { access: "https", cors: false } as const;

    scope.get(SIGNUP_PATH, { config }, async (_req, reply) => reply.type(HTML).send(signupFormPage()));

    // Answered here rather than by @fastify/cors's catch-all OPTIONS route, which would allow any origin.
    scope.options(SIGNUP_PATH, { config }, async (_req, reply) =>
      reply.code(204).header("Allow", "GET, HEAD, POST, OPTIONS").send(),
    );

    scope.post(
      SIGNUP_PATH,
      {
        bodyLimit: 16_384,
        config,
        onRequest: async (req, reply) => {
          if (isSameSite(req, options.baseUrl)) return;
          const refusal = new ApiError("CROSS_SITE_SIGNUP", {
            vars: { signupUrl: `${publicBaseUrl(req, options.baseUrl)}${SIGNUP_PATH}` },
          });
          if (isJson(req)) throw refusal;
          return reply
            .code(refusal.status)
            .type(HTML)
            .send(signupFormPage({ error: { field: undefined, message: refusal.message } }));
        },
      },
      async (req, reply) => {
        const wantsJson = isJson(req);
        let signup: Signup;
        try {
          signup = parseSignup(req.body ?? {});
        } catch (err) {
          if (wantsJson || !(err instanceof ApiError)) throw err;
          return reply
            .code(400)
            .type(HTML)
            .send(
              signupFormPage({
                values: formValues(req.body),
                error: { field: err.details.pointer?.slice(1), message: err.message },
              }),
            );
        }
        const decision = await options.limiter.checkSubject(
          `signup:${req.ip}`,
          options.signupsPerHour,
          SECONDS_PER_HOUR,
        );
        reply.headers(limitHeaders(decision));
        if (!decision.allowed) return refuseOverLimit(reply, wantsJson, decision);
        const key = await options.issueKey(signup);
        reply.code(201).header("Cache-Control", "no-store");
        if (wantsJson) return { api_key: key, email: signup.email };
        return reply.type(HTML).send(
          signupDonePage(key, signup.email, {
            baseUrl: publicBaseUrl(req, options.baseUrl),
            caCertPath: caCertPathFor(req, options.selfSignedCertPath),
          }),
        );
      },
    );
  });
}

function refuseOverLimit(reply: FastifyReply, wantsJson: boolean, decision: RateLimitDecision): FastifyReply {
  if (!wantsJson) {
    return reply
      .code(429)
      .header("Retry-After", String(decision.resetSeconds))
      .type(HTML)
      .send(signupLimitedPage(decision.resetSeconds));
  }
  throw overRateLimitError(decision);
}

/**
 * False when the request comes from a page of another site: it says `Sec-Fetch-Site: cross-site`,
 * or its `Origin` (browsers send one with every POST) differs from this server's origin. Without
 * either header (curl, scripts), true.
 */
function isSameSite(req: FastifyRequest, baseUrl: string | undefined): boolean {
  const fetchSite = req.headers["sec-fetch-site"];
  if (
    fetchSite !== undefined &&
    String(fetchSite)
      .split(",")
      .some((site) => site.trim().toLowerCase() === "cross-site")
  ) {
    return false;
  }
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  const own = originOf(publicBaseUrl(req, baseUrl));
  return own !== undefined && originOf(origin) === own;
}

/** The serialized origin of a URL (`https://host[:port]`), or undefined when it is not an http(s) URL. */
function originOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}

/** What was typed into the form's fields, to show it again: text values of the form's own fields only. */
function formValues(body: unknown): Record<string, string> {
  const values: Record<string, string> = {};
  if (typeof body !== "object" || body === null) return values;
  for (const name of Object.keys(SIGNUP_FIELDS)) {
    const value = Object.hasOwn(body, name) ? (body as Record<string, unknown>)[name] : undefined;
    if (typeof value === "string") values[name] = value;
  }
  return values;
}

function isJson(req: FastifyRequest): boolean {
  return String(req.headers["content-type"] ?? "").includes("json");
}
