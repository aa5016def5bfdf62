import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { openApiDocument } from "../../src/domain/openapi-document.js";

// ajv-formats is CommonJS: its function is the module's default export's default under NodeNext.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => void;

/** One answer as a test received it. `path` is the request-target (path and query). */
export interface ContractAnswer {
  method: string;
  path: string;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

type Json = Record<string, any>;

/**
 * The rule for what the contract does not cover (also in the document's description and
 * docs/api.md): pages for people (HTML, and the files they load): `/signup`, `/`, `/docs`,
 * `/explore` and `/assets`, each with what is below it; and CORS preflights (`OPTIONS`).
 */
export function isOutsideContract(method: string, path: string): boolean {
  const pathname = path.split("?")[0]!;
  if (method.toUpperCase() === "OPTIONS" || pathname === "/") return true;
  return ["/signup", "/docs", "/explore", "/assets"].some(
    (page) => pathname === page || pathname.startsWith(`${page}/`),
  );
}

const DOCUMENT_ID = "https://ftcapi.invalid/openapi.json";

/** Checks answers against one OpenAPI document with a JSON Schema 2020-12 validator. */
export class OpenApiContract {
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly routes: Array<{ template: string; pattern: RegExp }>;

  constructor(private readonly document: Json) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(this.ajv);
    this.ajv.addSchema({ ...document, $id: DOCUMENT_ID });
    // As OpenAPI matches them: a path without templates before a templated one it also fits
    // (`/v0/dnc-complaints/counts` before `/v0/dnc-complaints/{id}`).
    this.routes = Object.keys(document.paths)
      .sort((left, right) => Number(left.includes("{")) - Number(right.includes("{")))
      .map((template) => ({
        template,
        pattern: new RegExp(
          `^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+")}$`,
        ),
      }));
  }

  /** Undefined when the answer is as documented, else what differs. */
  violation(answer: ContractAnswer): string | undefined {
    if (isOutsideContract(answer.method, answer.path)) return undefined;
    const pathname = answer.path.split("?")[0]!;
    const method = answer.method.toUpperCase() === "HEAD" ? "get" : answer.method.toLowerCase();
    const route = this.routes.find(({ pattern }) => pattern.test(pathname));
    const operation = route === undefined ? undefined : this.document.paths[route.template]?.[method];
    const statusKey = String(answer.status);
    const response = operation?.responses?.[statusKey] ?? operation?.responses?.[`${statusKey[0]}XX`];
    if (response === undefined) {
      const where = operation === undefined ? "an undocumented operation" : "an undocumented status";
      if (answer.status < 400) return `${where} answered ${answer.status}; only errors may be undocumented`;
      return this.errorBodyViolation(answer, where);
    }
    const base = [
      "paths",
      route!.template,
      method,
      "responses",
      operation.responses[statusKey] ? statusKey : `${statusKey[0]}XX`,
    ];
    return (
      this.headerViolation(answer, response, base) ??
      this.contentViolation(answer, response, [...base, "content"], answer.method.toUpperCase() === "HEAD")
    );
  }

  private headerViolation(answer: ContractAnswer, response: Json, base: string[]): string | undefined {
    for (const [name, spec] of Object.entries((response.headers ?? {}) as Record<string, Json>)) {
      const value = answer.headers[name.toLowerCase()];
      if (value === undefined) {
        if (spec.required) return `the required header ${name} is missing`;
        continue;
      }
      if (spec.schema === undefined) continue;
      const validate = this.validator([...base, "headers", name, "schema"]);
      const text = Array.isArray(value) ? value.join(", ") : value;
      if (!validate(text))
        return `the header ${name}: ${JSON.stringify(text)} ${this.ajv.errorsText(validate.errors)}`;
    }
    return undefined;
  }

  private contentViolation(
    answer: ContractAnswer,
    response: Json,
    base: string[],
    head: boolean,
  ): string | undefined {
    const content = response.content as Record<string, Json> | undefined;
    if (content === undefined) {
      return answer.body === "" ? undefined : `a body where none is documented: ${answer.body.slice(0, 200)}`;
    }
    const contentType = answer.headers["content-type"];
    const mediaType = String(contentType ?? "")
      .split(";")[0]!
      .trim()
      .toLowerCase();
    const documented = Object.keys(content).find((candidate) => candidate.toLowerCase() === mediaType);
    if (documented === undefined) {
      return `Content-Type ${String(contentType)} is not one of ${Object.keys(content).join(", ")}`;
    }
    if (head) return undefined;
    const value = bodyValue(mediaType, answer.body);
    if (value instanceof Error) return value.message;
    const validate = this.validator([...base, documented, "schema"]);
    if (!validate(value)) {
      return `the body (${documented}) ${this.ajv.errorsText(validate.errors, { dataVar: "body" })}: ${answer.body.slice(0, 300)}`;
    }
    return undefined;
  }

  /** An answer nothing documents: an error, in one of the documented error bodies. */
  private errorBodyViolation(answer: ContractAnswer, where: string): string | undefined {
    const mediaType = String(answer.headers["content-type"] ?? "")
      .split(";")[0]!
      .trim()
      .toLowerCase();
    if (answer.method.toUpperCase() === "HEAD") return undefined;
    const value = bodyValue(mediaType, answer.body);
    if (value instanceof Error) return `${where}: ${value.message}`;
    const errors = ["GatewayError", "JsonApiErrors", "DrupalErrors"];
    if (errors.some((name) => this.validator(["components", "schemas", name])(value))) return undefined;
    return `${where} answered ${answer.status} without a documented error body: ${answer.body.slice(0, 300)}`;
  }

  private validator(pointer: string[]): ValidateFunction {
    const ref = `${DOCUMENT_ID}#/${pointer.map((part) => encodeURIComponent(part.replaceAll("~", "~0").replaceAll("/", "~1"))).join("/")}`;
    let validate = this.validators.get(ref);
    if (validate === undefined) {
      validate = this.ajv.compile({ $ref: ref });
      this.validators.set(ref, validate);
    }
    return validate;
  }
}

function bodyValue(mediaType: string, body: string): unknown {
  if (mediaType === "application/json" || mediaType.endsWith("+json")) {
    try {
      return JSON.parse(body);
    } catch {
      return new Error(`the body is not JSON (${mediaType}): ${body.slice(0, 200)}`);
    }
  }
  if (mediaType.startsWith("application/json") || mediaType === "") {
    return new Error(`no Content-Type a documented body has: '${mediaType}'`);
  }
  return body;
}

/** The path and query of a request-target, also of an absolute-form one (`https://host/path`). */
export function pathOfTarget(target: string): string {
  if (!/^https?:\/\//i.test(target)) return target;
  const url = new URL(target);
  return `${url.pathname}${url.search}`;
}

let shared: OpenApiContract | undefined;

/** The contract of the document this tree serves (its `servers` aside). */
export function servedContract(): OpenApiContract {
  shared ??= new OpenApiContract(openApiDocument("https://ftcapi.invalid"));
  return shared;
}

/** Origins of servers started by `startTestServer`, whose answers are checked. */
const CHECKED_ORIGINS = new Set<string>();

export function checkAnswersFrom(...origins: string[]): void {
  for (const origin of origins) CHECKED_ORIGINS.add(new URL(origin).origin);
}

export function stopCheckingAnswersFrom(...origins: string[]): void {
  for (const origin of origins) CHECKED_ORIGINS.delete(new URL(origin).origin);
}

/**
 * Throws when an answer of a test server differs from the document, naming the request, the
 * status and the schema error. Answers of other servers (upstreams faked by tests) pass unchecked.
 */
export function assertAnswerMatchesContract(origin: string, answer: ContractAnswer): void {
  if (!CHECKED_ORIGINS.has(new URL(origin).origin)) return;
  const violation = servedContract().violation(answer);
  if (violation !== undefined) {
    throw new Error(`OpenAPI contract: ${answer.method} ${answer.path} -> ${answer.status}: ${violation}`);
  }
}
