import { type ErrorCode, errorCatalog } from "./error-catalog.js";

/** Details that make one error instance specific: which parameter, what was wrong, where to go. */
export interface ApiErrorDetails {
  /** Replaces the catalog message (parameter errors describe the exact problem). */
  detail?: string;
  /** The query parameter at fault, for JSON:API `source.parameter`. */
  parameter?: string;
  /** The body member at fault, as a JSON pointer (`/email`), for JSON:API `source.pointer`. */
  pointer?: string;
  /** Values substituted into gateway message templates (`{signupUrl}`, `{httpsUrl}`, ...). */
  vars?: Record<string, string>;
  /** Extra response headers, such as `Retry-After`. */
  headers?: Record<string, string>;
}

/**
 * The one error type the service answers with. Its code comes from the error catalog, which fixes
 * the status and the body format; anything that is not an ApiError is an internal error.
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ApiErrorDetails;

  constructor(code: ErrorCode, details: ApiErrorDetails = {}) {
    const entry = errorCatalog[code];
    super(details.detail ?? fillTemplate(entry.message, details.vars ?? {}));
    this.name = "ApiError";
    this.code = code;
    this.status = entry.status;
    this.details = details;
  }

  get format(): "gateway" | "jsonapi" {
    return errorCatalog[this.code].format;
  }

  get title(): string {
    return errorCatalog[this.code].title;
  }
}

function fillTemplate(template: string, vars: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => vars[name] ?? whole);
}
