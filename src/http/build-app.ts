import cors from "@fastify/cors";
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerFactory,
} from "fastify";
import type { KeyVerifier } from "../access/key-verifier.js";
import type { RateLimiter } from "../access/rate-limiter.js";
import { ApiError } from "../domain/api-error.js";
import { errorBody } from "../domain/error-body.js";
import type { Signup } from "../domain/signup-form.js";
import { SECONDS_PER_DAY } from "../domain/time.js";
import type { ComplaintStore } from "../store/complaint-store.js";
import type { NoticeReader } from "../store/notice-reader.js";
import type { CollectionFreshness } from "./collection-freshness.js";
import { registerComplaintRoutes } from "./complaint-routes.js";
import { answerClientError, registerErrorHandler } from "./error-handler.js";
import { registerGatewayHooks, registerRequestChecks } from "./gateway-hooks.js";
import { registerHealthRoutes } from "./health-routes.js";
import type { KeptAnswerLane } from "./kept-answer-lane.js";
import { registerNoticeRoutes } from "./notice-routes.js";
import { registerOpenApiRoutes } from "./openapi-routes.js";
import { registerRequestMetrics } from "./request-metrics.js";
import type { UnknownParameters } from "./request-urls.js";
import { hostProblem, httpsUrlOf, originForm, publicBaseUrl } from "./request-urls.js";
import type { ServerMetrics } from "./server-metrics.js";
import { registerSignupRoutes } from "./signup-routes.js";
import { registerStatusRoutes } from "./status-routes.js";
import { WebAssets } from "./web-assets.js";
import { registerWebRoutes } from "./web-routes.js";

export interface AppDeps {
  complaints: ComplaintStore;
  notices: NoticeReader;
  /** Every collection's update times, for Last-Modified and /v0/status. */
  freshness: CollectionFreshness;
  keys: KeyVerifier;
  rateLimiter: RateLimiter;
  /** False: API requests are not limited (sign-ups still are). */
  limitsEnabled: boolean;
  /** Issues a key for a sign-up; the plain key is returned once. */
  issueKey: (signup: Signup) => Promise<string>;
  /** Keys one client address may obtain by sign-up an hour. */
  signupsPerHour: number;
  logger: FastifyBaseLogger;
  /** Public base URL for links; undefined: each request's own scheme and host. */
  baseUrl: string | undefined;
  /**
   * The absolute path of the self-signed certificate the HTTPS listener serves, for `--cacert` in
   * the sign-up page's example; undefined with an operator's certificate (`--tls-cert`).
   */
  selfSignedCertPath?: string;
  /** What to do with query parameters the API does not take (default: refuse them with 400). */
  unknownParameters?: UnknownParameters;
  /** Trust `X-Forwarded-Proto` / `X-Forwarded-For` / `X-Forwarded-Host` from a proxy. */
  trustProxy: boolean;
  /** The HTTPS port, named in HTTPS_REQUIRED answers (known once listening). */
  httpsPort: () => number;
  /** Whether every database the app uses answers; for the readiness probe. */
  ready: () => Promise<boolean>;
  serverFactory?: FastifyServerFactory;
  /** Where requests and answer caches are reported; undefined: no metrics (no `--metrics-port`). */
  metrics?: ServerMetrics;
  /**
   * Where answers sent from an answer cache are remembered, so that the server's listeners answer
   * the same requests before the framework (`KeptAnswerLane`); undefined: every request takes the
   * framework's path.
   */
  keptAnswers?: KeptAnswerLane;
  /** The built web front (pages, docs, explorer); undefined: read from dist/web (`npm run build`). */
  webAssets?: WebAssets;
  /**
   * True only for the app `warmUp` (http/warm-up.ts) builds to answer the server's own requests in
   * process before the server listens: its gateway checks no key, limit or scheme. Such an app
   * must never listen; `buildApp` refuses one with a `serverFactory`.
   */
  warmUp?: boolean;
}

declare module "fastify" {
  interface FastifyContextConfig {
    /**
     * `false`: @fastify/cors adds no CORS headers to this route's answers (the plugin reads this
     * member). Same-origin pages, such as the sign-up form, say so; every other route is open to
     * any origin.
     */
    cors?: false;
  }
}

const READ_METHODS = ["GET", "HEAD", "OPTIONS"];

/** Builds the application without listening: gateway hooks, routes, errors. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  if (deps.warmUp && deps.serverFactory) throw new Error("a warm-up app is never served");
  const app = createFastify(deps);
  // First, so that every route, @fastify/cors's catch-all OPTIONS included, answers errors with it.
  registerErrorHandler(app);
  // Before CORS and the gateway: a bad Host is a 400, an OPTIONS that is not a preflight a 405.
  registerRequestChecks(app);
  // Any origin may read the API (it is public data behind keys); routes whose config says
  // `cors: false` (sign-up, same-origin only) get no CORS headers, preflight included.
  await app.register(cors, {
    origin: "*",
    methods: READ_METHODS,
    allowedHeaders: ["X-Api-Key", "Content-Type", "If-None-Match", "If-Modified-Since"],
    exposedHeaders: ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After"],
    maxAge: SECONDS_PER_DAY,
  });
  if (deps.metrics) registerRequestMetrics(app, deps.metrics);
  registerGatewayHooks(app, {
    keys: deps.keys,
    limiter: deps.limitsEnabled ? deps.rateLimiter : undefined,
    baseUrl: deps.baseUrl,
    httpsPort: deps.httpsPort,
    signupUrl: (req) => `${publicBaseUrl(req, deps.baseUrl)}/signup`,
    admitsAll: deps.warmUp === true,
  });
  registerHealthRoutes(app, deps.ready);
  registerOpenApiRoutes(app, deps.baseUrl);
  registerCollectionRoutes(app, deps);
  registerStatusRoutes(app, deps.freshness, deps.baseUrl);
  await registerSignupRoutes(app, {
    issueKey: deps.issueKey,
    limiter: deps.rateLimiter,
    signupsPerHour: deps.signupsPerHour,
    baseUrl: deps.baseUrl,
    selfSignedCertPath: deps.selfSignedCertPath,
  });
  const webAssets = deps.webAssets ?? (await WebAssets.load());
  if (!webAssets.built) deps.logger.warn("The web front is not built (dist/web): run npm run build.");
  registerWebRoutes(app, {
    assets: webAssets,
    freshness: deps.freshness,
    baseUrl: deps.baseUrl,
    selfSignedCertPath: deps.selfSignedCertPath,
  });
  registerMethodRefusals(app);
  return app;
}

/** The framework's instance with the server's options: logger, proxy trust, URL and error handling. */
function createFastify(deps: AppDeps): FastifyInstance {
  return Fastify({
    loggerInstance: deps.logger,
    trustProxy: deps.trustProxy,
    serverFactory: deps.serverFactory,
    // Requests that reached the server before SIGTERM are answered normally while it drains.
    return503OnClosing: false,
    rewriteUrl: (req) => originForm(req.url ?? "/"),
    // Routes read the query string themselves, in order and with repeats (`queryPairs`); parsing it
    // into `req.query` as well cost a notice filter of 10 KB a third of its parsing.
    routerOptions: { querystringParser: () => ({}) },
    // Bytes that never became a request (headers too large, too slow, not HTTP) are answered in
    // the documented error body too; the plain listener installs the same (server-connections.ts).
    clientErrorHandler: answerClientError,
    // A path the router cannot decode (`/v0/hsr-early-termination-notices/%`) never reaches the
    // hooks: answer a bad Host, then HTTPS_REQUIRED, first as they would, and never echo the
    // target, which may hold a key.
    frameworkErrors: (_err, req, reply) => {
      const problem = hostProblem(req);
      const apiError =
        problem !== undefined
          ? new ApiError("BAD_REQUEST", { detail: problem })
          : req.protocol === "https"
            ? new ApiError("BAD_REQUEST", { detail: "The request path is not valid percent-encoding." })
            : new ApiError("HTTPS_REQUIRED", {
                vars: { httpsUrl: httpsUrlOf(req, deps.baseUrl, deps.httpsPort()) },
              });
      (reply as FastifyReply).code(apiError.status).type("application/json").send(errorBody(apiError));
    },
  });
}

/** Both collections' list, export and count routes, with the same export terms and answer cache options. */
function registerCollectionRoutes(app: FastifyInstance, deps: AppDeps): void {
  const exportOptions = {
    limiter: deps.limitsEnabled ? deps.rateLimiter : undefined,
    signupUrl: (req: FastifyRequest) => `${publicBaseUrl(req, deps.baseUrl)}/signup`,
  };
  registerComplaintRoutes(
    app,
    deps.complaints,
    deps.baseUrl,
    exportOptions,
    deps.metrics?.watchAnswerCache,
    deps.unknownParameters,
    deps.keptAnswers,
  );
  registerNoticeRoutes(
    app,
    deps.notices,
    deps.baseUrl,
    exportOptions,
    deps.metrics?.watchAnswerCache,
    deps.unknownParameters,
    deps.keptAnswers,
  );
}

/**
 * Any method but GET, HEAD and a CORS preflight on a path that has routes (a write, PROPFIND,
 * TRACE, PUT /signup) is a 405 naming the methods the path takes; on a path without, a 404. Both
 * come after the gateway, which judges such a request by its path (gateway-hooks.ts).
 */
function registerMethodRefusals(app: FastifyInstance): void {
  app.setNotFoundHandler(async (req) => {
    const path = req.url.split("?", 1)[0]!;
    const allowed = (["GET", "HEAD", "POST"] as const).filter(
      (method) => app.findRoute({ method, url: path }) !== null,
    );
    if (allowed.length === 0) throw new ApiError("NOT_FOUND");
    throw new ApiError("METHOD_NOT_ALLOWED", {
      vars: { method: req.method },
      headers: { Allow: [...allowed, "OPTIONS"].join(", ") },
    });
  });
}
