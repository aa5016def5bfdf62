import { COMPLAINTS, NOTICES } from "./collections.js";
import { COMPLAINT_PARAMETERS, type ComplaintParameter, MAX_ITEMS_PER_PAGE } from "./complaint-query.js";
import { NOTICE_ATTRIBUTE_NAMES, NOTICE_FIELDS } from "./notice-fields.js";
import { MAX_PAGE_LIMIT, OPERATORS } from "./notice-query.js";

type Schema = Record<string, unknown>;

const dateOrTime = {
  type: "string",
  pattern: '^"?\\d{4}-\\d{2}-\\d{2}( \\d{2}:\\d{2}:\\d{2})?"?$',
  example: '"2026-11-02 08:00:00"',
};

/**
 * Every complaint parameter with its schema and meaning. Typed by the parser's own list, so a
 * parameter cannot be accepted without being documented here.
 */
const COMPLAINT_PARAMETER_DOCS: Record<ComplaintParameter, { description: string; schema: Schema }> = {
  created_date: {
    description: "Complaints created on that day (`YYYY-MM-DD`, optionally in double quotes).",
    schema: { ...dateOrTime, example: "2026-11-02" },
  },
  created_date_from: {
    description:
      "Start of a created range; needs `created_date_to`. A date alone starts at 00:00:00; times as `YYYY-MM-DD HH:MM:SS`.",
    schema: dateOrTime,
  },
  created_date_to: {
    description: "End of a created range; needs `created_date_from`. A date alone ends at 23:59:59.",
    schema: dateOrTime,
  },
  violation_date: {
    description: "Calls received on that day.",
    schema: { ...dateOrTime, example: "2026-11-01" },
  },
  violation_date_from: {
    description: "Start of a range of times the calls were received; needs `violation_date_to`.",
    schema: dateOrTime,
  },
  violation_date_to: {
    description: "End of a range of times the calls were received; needs `violation_date_from`.",
    schema: dateOrTime,
  },
  state: {
    description:
      "The consumer's state, as a full name, in any case. Filters combine (AND) in any combination.",
    schema: { type: "string", example: "New York" },
  },
  city: {
    description: "The consumer's city, in any case; without `state`, that city in every state.",
    schema: { type: "string", example: "Rochester" },
  },
  area_code: { description: "The consumer's area code.", schema: { type: "string", pattern: "^\\d+$" } },
  is_robocall: {
    description: "Whether the call was a recorded message or robocall.",
    schema: { type: "string", enum: ["true", "false"] },
  },
  company_phone_number: {
    description: "The caller's number, digits exactly as published (not offered by api.ftc.gov).",
    schema: { type: "string", pattern: "^\\d+$", example: "2025550123" },
  },
  sort_by: {
    description: "The only order is by created date (ties by id); accepted for clients that send it.",
    schema: { type: "string", enum: ["created_date"] },
  },
  sort_order: {
    description: "Newest first (default) or oldest first; any case.",
    schema: { type: "string", enum: ["DESC", "ASC"], default: "DESC" },
  },
  items_per_page: {
    description: "Page size.",
    schema: { type: "integer", minimum: 1, maximum: MAX_ITEMS_PER_PAGE, default: MAX_ITEMS_PER_PAGE },
  },
  offset: { description: "Records to skip.", schema: { type: "integer", minimum: 0, default: 0 } },
};

const FIELD_SCHEMAS: Record<(typeof NOTICE_FIELDS)[keyof typeof NOTICE_FIELDS], Schema> = {
  id: { type: "string", format: "uuid" },
  text: { type: "string" },
  date: { type: "string", format: "date" },
  timestamp: { type: "string", example: "2013-09-24T20:05:39+00:00" },
  array: { type: "array", items: { type: "string" } },
};

const apiError = (example: string) => ({
  description: example,
  content: {
    "application/json": {
      schema: { $ref: "#/components/schemas/GatewayError" },
    },
  },
});

const GATEWAY_RESPONSES = {
  "400": {
    description: "`HTTPS_REQUIRED` (plain HTTP), or a JSON:API error document naming a bad parameter.",
    content: {
      "application/json": {
        schema: {
          oneOf: [
            { $ref: "#/components/schemas/GatewayError" },
            { $ref: "#/components/schemas/JsonApiErrors" },
          ],
        },
      },
    },
  },
  "403": apiError("`API_KEY_MISSING`, `API_KEY_INVALID` or `API_KEY_DISABLED`."),
  "429": {
    ...apiError("`OVER_RATE_LIMIT`; `Retry-After` gives the seconds to wait."),
    headers: { "Retry-After": { schema: { type: "integer" } } },
  },
  "503": apiError("`SERVICE_UNAVAILABLE`: the database is away; `Retry-After` gives the seconds to wait."),
};

const LIMIT_HEADERS = {
  "X-RateLimit-Limit": { schema: { type: "integer" }, description: "The key's limit in its window." },
  "X-RateLimit-Remaining": { schema: { type: "integer" }, description: "Requests left in the window." },
  "X-RateLimit-Reset": { schema: { type: "integer" }, description: "Seconds until a request is freed." },
  "Last-Modified": { schema: { type: "string" }, description: "When the collection last changed." },
};

const ok = (description: string, mediaType: string, schema: Schema) => ({
  "200": { description, headers: LIMIT_HEADERS, content: { [mediaType]: { schema } } },
  "304": { description: "Not modified since `If-Modified-Since`." },
  ...GATEWAY_RESPONSES,
});

const noticeParameters = [
  {
    name: "filter",
    in: "query",
    style: "deepObject",
    explode: true,
    schema: { type: "object", additionalProperties: true },
    description: `Drupal JSON:API filters: \`filter[field]=value\`; \`filter[k][condition][path|operator|value|memberOf]\`; groups \`filter[g][group][conjunction]=AND|OR\`. Fields: ${Object.keys(NOTICE_FIELDS).join(", ")}. Operators: ${OPERATORS.join(", ")}. Text compares without regard to case.`,
  },
  {
    name: "sort",
    in: "query",
    schema: { type: "string", example: "-created,title" },
    description:
      "Comma-separated fields, `-` for descending; or `sort[k][path]=field&sort[k][direction]=ASC|DESC`. Default: newest `created` first; ties by id.",
  },
  {
    name: "page[limit]",
    in: "query",
    schema: { type: "integer", minimum: 1, maximum: MAX_PAGE_LIMIT, default: MAX_PAGE_LIMIT },
  },
  { name: "page[offset]", in: "query", schema: { type: "integer", minimum: 0, default: 0 } },
  {
    name: "fields[early_termination_notice]",
    in: "query",
    schema: { type: "string", example: "title,date" },
    description: `Sparse fieldset: any of ${NOTICE_ATTRIBUTE_NAMES.join(", ")}, node_type.`,
  },
  {
    name: "title",
    in: "query",
    schema: { type: "string" },
    description: 'Keywords in the title; a "double-quoted phrase" matches as a phrase (also `keywords`).',
  },
  { name: "transaction_number", in: "query", schema: { type: "string" } },
  { name: "date", in: "query", schema: { type: "string", format: "date" } },
  { name: "sort_by", in: "query", schema: { type: "string", enum: ["created", "changed"] } },
  { name: "sort_order", in: "query", schema: { type: "string", enum: ["DESC", "ASC"] } },
  { name: "items_per_page", in: "query", schema: { type: "integer", minimum: 1, maximum: MAX_PAGE_LIMIT } },
  { name: "offset", in: "query", schema: { type: "integer", minimum: 0 } },
];

/** The attributes of a notice, each with the schema of its kind. */
const NOTICE_ATTRIBUTE_SCHEMAS = Object.fromEntries(
  NOTICE_ATTRIBUTE_NAMES.map((name) => [name, FIELD_SCHEMAS[NOTICE_FIELDS[name]]]),
);

/** The document's `components.schemas`: error bodies, complaints and notices. */
const SCHEMAS = {
  GatewayError: {
    type: "object",
    required: ["error"],
    properties: {
      error: {
        type: "object",
        required: ["code", "message"],
        properties: { code: { type: "string" }, message: { type: "string" } },
      },
    },
  },
  JsonApiErrors: {
    type: "object",
    required: ["errors"],
    properties: {
      errors: {
        type: "array",
        items: {
          type: "object",
          properties: {
            status: { type: "string" },
            code: { type: "string" },
            title: { type: "string" },
            detail: { type: "string" },
            source: { type: "object", properties: { parameter: { type: "string" } } },
          },
        },
      },
    },
  },
  Complaint: {
    type: "object",
    properties: {
      type: { const: "dnc_complaint" },
      id: { type: "string", pattern: "^[0-9a-f]{32}$" },
      attributes: {
        type: "object",
        properties: Object.fromEntries(
          [
            "company-phone-number",
            "created-date",
            "violation-date",
            "consumer-city",
            "consumer-state",
            "consumer-area-code",
            "subject",
            "recorded-message-or-robocall",
          ].map((name) => [name, { type: "string" }]),
        ),
      },
      relationships: { type: "array", maxItems: 0 },
      meta: { type: "array", maxItems: 0 },
      links: { type: "object", properties: { self: { type: "string", format: "uri" } } },
    },
  },
  ComplaintEnvelope: {
    type: "object",
    properties: {
      data: { type: "array", items: { $ref: "#/components/schemas/Complaint" } },
      meta: {
        type: "object",
        properties: {
          "records-this-page": { type: "integer" },
          "record-total": { type: "integer", description: "Exact; as the live service spells it." },
          "records-total": {
            type: "integer",
            description: "The same total, as its documentation spells it.",
          },
        },
      },
      links: { type: "object", properties: { self: { type: "string", format: "uri" } } },
    },
  },
  Notice: {
    type: "object",
    properties: {
      type: { const: "early_termination_notice" },
      id: { type: "string", format: "uuid" },
      links: { type: "object" },
      attributes: { type: "object", properties: NOTICE_ATTRIBUTE_SCHEMAS },
      relationships: { type: "object" },
    },
  },
  NoticeDocument: {
    type: "object",
    properties: {
      jsonapi: { type: "object" },
      data: { type: "array", items: { $ref: "#/components/schemas/Notice" } },
      meta: { type: "object", properties: { count: { type: "integer", description: "Exact." } } },
      links: {
        type: "object",
        description: "`self`, and `next`, `prev`, `first`, `last` when they lead somewhere; each `{href}`.",
      },
    },
  },
};

/** The OpenAPI 3.1 description of the API, built from the same lists the parsers use. */
export function openApiDocument(serverUrl: string): Record<string, unknown> {
  return {
    openapi: "3.1.0",
    info: {
      title: "ftcapi: FTC Do Not Call complaints and HSR early-termination notices",
      version: "0",
      description:
        "A drop-in replacement for api.ftc.gov: read-only JSON behind API keys. Unknown parameters are refused with 400, never ignored.",
    },
    servers: [{ url: serverUrl }],
    security: [{ headerKey: [] }, { queryKey: [] }],
    paths: apiPaths(),
    components: {
      securitySchemes: {
        headerKey: { type: "apiKey", in: "header", name: "X-Api-Key" },
        queryKey: { type: "apiKey", in: "query", name: "api_key" },
      },
      schemas: SCHEMAS,
    },
  };
}

/** The document's `paths`: each route with its parameters and answers. */
function apiPaths(): Record<string, unknown> {
  const complaintParameters = COMPLAINT_PARAMETERS.map((name) => ({
    name,
    in: "query",
    ...COMPLAINT_PARAMETER_DOCS[name],
  }));
  return {
    [COMPLAINTS.path]: {
      get: {
        summary: "List Do Not Call complaints, newest first, with the exact total",
        parameters: complaintParameters,
        responses: ok("A page of complaints.", COMPLAINTS.contentType, {
          $ref: "#/components/schemas/ComplaintEnvelope",
        }),
      },
    },
    [`${COMPLAINTS.path}/{id}`]: {
      get: {
        summary: "One complaint, in the list's envelope",
        parameters: [
          { name: "id", in: "path", required: true, schema: { type: "string", pattern: "^[0-9a-f]{32}$" } },
        ],
        responses: {
          ...ok("The complaint.", COMPLAINTS.contentType, { $ref: "#/components/schemas/ComplaintEnvelope" }),
          "404": { description: "No complaint has that id." },
        },
      },
    },
    [NOTICES.path]: {
      get: {
        summary: "List early-termination notices (Drupal JSON:API query language)",
        parameters: noticeParameters,
        responses: ok("A page of notices.", NOTICES.contentType, {
          $ref: "#/components/schemas/NoticeDocument",
        }),
      },
    },
    [`${NOTICES.path}/{id}`]: {
      get: {
        summary: "One notice",
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string", format: "uuid" } }],
        responses: {
          ...ok("The notice, as an array of one.", "application/vnd.api+json", {
            $ref: "#/components/schemas/NoticeDocument",
          }),
          "404": { description: "No notice has that id." },
        },
      },
    },
    "/v0/status": {
      get: {
        summary: "Per collection: record count, newest record, last update, next update due",
        responses: ok("The status of each collection.", "application/json", { type: "object" }),
      },
    },
  };
}
