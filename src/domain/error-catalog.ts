/**
 * Every error the service can answer with. Codes are stable: clients may branch on them.
 * `gateway` errors use the api.data.gov body `{"error":{"code","message"}}`; `jsonapi` errors use a
 * JSON:API error document (`errors[]` with `status` as a string, `title`, `detail`, `source`).
 * Gateway messages are worded as api.data.gov (API Umbrella) words them.
 */
export const errorCatalog = {
  HTTPS_REQUIRED: {
    status: 400,
    format: "gateway",
    title: "Bad Request",
    message: "Requests must be made over HTTPS. Try accessing the API at: {httpsUrl}",
  },
  API_KEY_MISSING: {
    status: 403,
    format: "gateway",
    title: "Forbidden",
    message: "No api_key was supplied. Get one at {signupUrl}",
  },
  API_KEY_INVALID: {
    status: 403,
    format: "gateway",
    title: "Forbidden",
    message: "An invalid api_key was supplied. Get one at {signupUrl}",
  },
  API_KEY_DISABLED: {
    status: 403,
    format: "gateway",
    title: "Forbidden",
    message: "The api_key supplied has been disabled. Please contact us at {contactUrl} for assistance",
  },
  CROSS_SITE_SIGNUP: {
    status: 403,
    format: "gateway",
    title: "Forbidden",
    message:
      "Keys are issued only through this server's own sign-up form at {signupUrl}: a page on another site cannot sign up on its visitors' behalf.",
  },
  OVER_RATE_LIMIT: {
    status: 429,
    format: "gateway",
    title: "Too Many Requests",
    // The live gateway's code and body shape; the text says what the limit is and when it resets.
    message:
      "You have exceeded your rate limit of {limit} per {window}. It resets in {reset}: try again then (Retry-After gives the seconds).",
  },
  EXPORT_OVER_RATE_LIMIT: {
    status: 429,
    format: "gateway",
    title: "Too Many Requests",
    // An export costs one request per 10,000 records started, taken before it starts.
    message:
      "This export of {records} records needs {needed} requests of your rate limit of {limit} per {window} (one per 10,000 records started, this request included), and {available} are left. Narrow the filters, or try again in {reset} (Retry-After gives the seconds).",
  },
  EXPORT_TOO_LARGE_FOR_DEMO_KEY: {
    status: 403,
    format: "gateway",
    title: "Forbidden",
    message:
      "DEMO_KEY may export at most {max} records in one request; this export has {records}. Narrow the filters, or get a key of your own at {signupUrl}",
  },
  NOT_FOUND: {
    status: 404,
    format: "gateway",
    title: "Not Found",
    message: "The requested URL was not found on this server.",
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    format: "gateway",
    title: "Method Not Allowed",
    message: "The {method} method is not allowed. This API is read-only: use GET or HEAD.",
  },
  BAD_REQUEST: {
    status: 400,
    format: "gateway",
    title: "Bad Request",
    message: "The request could not be understood.",
  },
  REQUEST_TIMEOUT: {
    status: 408,
    format: "gateway",
    title: "Request Timeout",
    message:
      "The request did not arrive in time; the connection is closed. Send it again on a new connection.",
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    format: "gateway",
    title: "Content Too Large",
    message: "The request body is too large.",
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    format: "gateway",
    title: "Unsupported Media Type",
    message: "The request body's Content-Type is not one this endpoint takes.",
  },
  HEADERS_TOO_LARGE: {
    status: 431,
    format: "gateway",
    title: "Request Header Fields Too Large",
    message: "The request's headers are too large: at most {maxBytes} bytes in all.",
  },
  INVALID_PARAMETER: {
    status: 400,
    format: "jsonapi",
    title: "Bad Request",
    message: "A query parameter has an invalid value.",
  },
  UNKNOWN_PARAMETER: {
    status: 400,
    format: "jsonapi",
    title: "Bad Request",
    message: "The request has a query parameter this endpoint does not accept.",
  },
  EXPORT_NOT_PAGED: {
    status: 400,
    format: "jsonapi",
    title: "Bad Request",
    message: "An export (format csv or ndjson) takes no paging parameter.",
  },
  INVALID_FILTER: {
    status: 400,
    format: "jsonapi",
    title: "Bad Request",
    message: "The filter parameter is not valid.",
  },
  INVALID_SORT: {
    status: 400,
    format: "jsonapi",
    title: "Bad Request",
    message: "The sort parameter is not valid.",
  },
  INVALID_PAGE: {
    status: 400,
    format: "jsonapi",
    title: "Bad Request",
    message: "The page parameter is not valid.",
  },
  INVALID_FIELD: {
    status: 400,
    format: "jsonapi",
    title: "Bad Request",
    message: "A field of the submitted form is missing or invalid.",
  },
  RECORD_NOT_FOUND: {
    status: 404,
    format: "jsonapi",
    title: "Not Found",
    message: "The requested record does not exist.",
  },
  SERVICE_UNAVAILABLE: {
    status: 503,
    format: "gateway",
    title: "Service Unavailable",
    message: "The service is temporarily unavailable. Try again shortly.",
  },
  INTERNAL_ERROR: {
    status: 500,
    format: "gateway",
    title: "Internal Server Error",
    message: "An unexpected error occurred. It has been logged.",
  },
} as const satisfies Record<
  string,
  { status: number; format: "gateway" | "jsonapi"; title: string; message: string }
>;

export type ErrorCode = keyof typeof errorCatalog;
