import { COMPLAINTS, NOTICES } from "./collections.js";
import { COMPLAINT_COUNT_MEMBERS } from "./complaint-count-query.js";
import { COMPLAINT_PARAMETERS, type ComplaintParameter, MAX_ITEMS_PER_PAGE } from "./complaint-query.js";
import { NOTICE_COUNT_FIELDS } from "./notice-count-query.js";
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
  subject: {
    description:
      "The complaint's subject, exactly but in any case, surrounding spaces ignored (`subject=other` matches `Other`); not offered by api.ftc.gov.",
    schema: { type: "string", example: "Computer & technical support" },
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

const nullable = (schema: Schema): Schema => ({ ...schema, type: [schema.type as string, "null"] });

const FIELD_SCHEMAS: Record<(typeof NOTICE_FIELDS)[keyof typeof NOTICE_FIELDS], Schema> = {
  id: { type: "string", format: "uuid" },
  text: { type: "string" },
  date: { type: "string", format: "date" },
  timestamp: { type: "string", example: "2013-09-24T20:05:39+00:00" },
  array: { type: "array", items: { type: "string" } },
};

/** Notice attributes that are null when the record has no value. */
const NULLABLE_NOTICE_ATTRIBUTES = new Set(["date", "acquiring-party", "acquired-party"]);

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const closed = (properties: Record<string, Schema>, required = Object.keys(properties)): Schema => ({
  type: "object",
  additionalProperties: false,
  required,
  properties,
});
const href = closed({
  href: {
    type: "string",
    pattern: "^https?://",
    description: "Absolute; the request URL as sent (without the key), so not always an RFC 3986 URI.",
  },
});
const header = (description: string, schema: Schema = { type: "string" }, required = false) => ({
  description,
  required,
  schema,
});

/** Headers a keyed answer may carry. The rate-limit headers are sent when limits are switched on. */
const KEYED_HEADERS = {
  "X-RateLimit-Limit": header("The key's limit in its window (when limits are on).", {
    type: "string",
    pattern: "^\\d+$",
  }),
  "X-RateLimit-Remaining": header("Requests left in the window (when limits are on).", {
    type: "string",
    pattern: "^\\d+$",
  }),
  "X-RateLimit-Reset": header("Seconds until a request is freed (when limits are on).", {
    type: "string",
    pattern: "^\\d+$",
  }),
};
const IGNORED_HEADER = {
  "Ignored-Parameters": header(
    "Only with `--ignore-unknown-parameters`: the unknown parameters ignored, comma-separated, in request order.",
  ),
};
const LAST_MODIFIED = {
  "Last-Modified": header("When the collection last changed (once an import or mirror run is recorded)."),
};
const ETAG = {
  ETag: header("The answer's entity tag; send it back in `If-None-Match` to get 304.", {}, true),
};
const NO_CACHE = {
  "Cache-Control": header("`no-cache`: clients revalidate.", { type: "string", const: "no-cache" }, true),
};
const RETRY_AFTER = {
  "Retry-After": header("Seconds to wait.", { type: "string", pattern: "^\\d+$" }, true),
};

const json = (schema: Schema, mediaType = "application/json") => ({ [mediaType]: { schema } });
const gatewayError = (description: string, headers: Record<string, unknown> = {}) => ({
  description,
  headers,
  content: json(ref("GatewayError")),
});

/** Errors of the gateway, the same on every keyed route. */
const GATEWAY_RESPONSES = {
  "403": gatewayError("`API_KEY_MISSING`, `API_KEY_INVALID` or `API_KEY_DISABLED`."),
  "429": gatewayError("`OVER_RATE_LIMIT`: the message says the limit and when it resets.", {
    ...RETRY_AFTER,
    ...KEYED_HEADERS,
  }),
  "503": gatewayError("`SERVICE_UNAVAILABLE`: the database is away.", RETRY_AFTER),
};

/** The 400s and 404 of a collection: its own error documents, plus the gateway's `HTTPS_REQUIRED`. */
function collectionErrors(collection: "complaints" | "notices", notFound: boolean): Record<string, unknown> {
  const own =
    collection === "notices"
      ? json(ref("DrupalErrors"), "application/vnd.api+json")
      : json(ref("JsonApiErrors"));
  const responses: Record<string, unknown> = {
    "400": {
      description:
        collection === "notices"
          ? "A bad parameter: a Drupal JSON:API error document (`application/vnd.api+json`); or `HTTPS_REQUIRED` over plain HTTP (`application/json`)."
          : "A bad parameter: a JSON:API error document; or `HTTPS_REQUIRED` over plain HTTP.",
      headers: KEYED_HEADERS,
      content:
        collection === "notices"
          ? { ...json(ref("GatewayError")), ...own }
          : json({ oneOf: [ref("GatewayError"), ref("JsonApiErrors")] }),
    },
    ...GATEWAY_RESPONSES,
  };
  if (notFound) {
    responses["404"] = {
      description: "`RECORD_NOT_FOUND`: no record has that id (or that `resourceVersion`).",
      headers: KEYED_HEADERS,
      content: own,
    };
  }
  return responses;
}

function success(
  description: string,
  mediaType: string,
  schema: Schema,
  options: { etag: boolean; lastModified: boolean; ignored: boolean },
): Record<string, unknown> {
  const headers = {
    ...KEYED_HEADERS,
    ...(options.etag ? { ...ETAG, ...NO_CACHE } : {}),
    ...(options.lastModified ? LAST_MODIFIED : {}),
    ...(options.ignored ? IGNORED_HEADER : {}),
  };
  const responses: Record<string, unknown> = {
    "200": { description, headers, content: json(schema, mediaType) },
  };
  if (options.etag || options.lastModified) {
    responses["304"] = {
      description: [
        options.etag ? "`If-None-Match` names the current ETag" : "",
        options.lastModified ? "`If-Modified-Since` is not older than the last change" : "",
      ]
        .filter(Boolean)
        .join(", or ")
        .concat(": not modified, no body."),
      headers: {
        ...KEYED_HEADERS,
        ...(options.etag ? { ...ETAG, ...NO_CACHE } : {}),
        ...(options.lastModified ? LAST_MODIFIED : {}),
      },
    };
  }
  return responses;
}

/** The notice fields that filters take, each under its own bracketed names, as generators can send them. */
function noticeFilterParameters(): Schema[] {
  const parameters: Schema[] = [];
  for (const field of Object.keys(NOTICE_FIELDS)) {
    parameters.push(
      {
        name: `filter[${field}]`,
        in: "query",
        schema: { type: "string" },
        description: `Notices whose \`${field}\` equals this value (text without regard to case).`,
      },
      {
        name: `filter[${field}][operator]`,
        in: "query",
        schema: { type: "string", enum: [...OPERATORS] },
        description: `The operator comparing \`${field}\` with \`filter[${field}][value]\`.`,
      },
      {
        name: `filter[${field}][value]`,
        in: "query",
        schema: { type: "string" },
        description: `The value \`${field}\` is compared with by \`filter[${field}][operator]\`.`,
      },
      {
        name: `filter[${field}][value][]`,
        in: "query",
        style: "form",
        explode: true,
        schema: { type: "array", items: { type: "string" } },
        description: `Values for the operators that take several (\`IN\`, \`NOT IN\`, \`BETWEEN\`, \`NOT BETWEEN\`).`,
      },
    );
  }
  return parameters;
}

const FIELDSET_PARAMETER = {
  name: "fields[early_termination_notice]",
  in: "query",
  schema: { type: "string", example: "title,date" },
  description: `Sparse fieldset: any of ${NOTICE_ATTRIBUTE_NAMES.join(", ")}, node_type.`,
};

const noticeParameters = [
  ...noticeFilterParameters(),
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
  FIELDSET_PARAMETER,
  {
    name: "title",
    in: "query",
    schema: { type: "string" },
    description: 'Keywords in the title; a "double-quoted phrase" matches as a phrase.',
  },
  { name: "keywords", in: "query", schema: { type: "string" }, description: "The same as `title`." },
  { name: "transaction_number", in: "query", schema: { type: "string" } },
  { name: "date", in: "query", schema: { type: "string", format: "date" } },
  { name: "sort_by", in: "query", schema: { type: "string", enum: ["created", "changed"] } },
  { name: "sort_order", in: "query", schema: { type: "string", enum: ["DESC", "ASC"] } },
  { name: "items_per_page", in: "query", schema: { type: "integer", minimum: 1, maximum: MAX_PAGE_LIMIT } },
  { name: "offset", in: "query", schema: { type: "integer", minimum: 0 } },
];

const ONE_NOTICE_PARAMETERS = [
  { name: "id", in: "path", required: true, schema: { type: "string", format: "uuid" } },
  {
    name: "resourceVersion",
    in: "query",
    schema: { type: "string", pattern: "^id:\\d{1,15}$", example: "id:3" },
    description: "The revision the record's links name; only the current revision is kept (others: 404).",
  },
  FIELDSET_PARAMETER,
];

/** The attributes of a notice, each with the schema of its kind; null where a notice may have no value. */
const NOTICE_ATTRIBUTE_SCHEMAS = Object.fromEntries(
  NOTICE_ATTRIBUTE_NAMES.map((name) => {
    const schema = FIELD_SCHEMAS[NOTICE_FIELDS[name]];
    return [name, NULLABLE_NOTICE_ATTRIBUTES.has(name) ? nullable(schema) : schema];
  }),
);

const jsonApiError = {
  status: { type: "string", pattern: "^\\d{3}$" },
  code: { type: "string" },
  title: { type: "string" },
  detail: { type: "string" },
  source: {
    oneOf: [closed({ parameter: { type: "string" } }), closed({ pointer: { type: "string" } })],
  },
};
const JSONAPI_MEMBER_SCHEMA = closed({
  version: { const: "1.0" },
  meta: closed({ links: closed({ self: href }) }),
});

/** The document's `components.schemas`: error bodies, complaints, notices and the status. */
const SCHEMAS = {
  GatewayError: closed({ error: closed({ code: { type: "string" }, message: { type: "string" } }) }),
  JsonApiErrors: closed({
    errors: {
      type: "array",
      minItems: 1,
      items: closed(jsonApiError, ["status", "code", "title", "detail"]),
    },
  }),
  DrupalErrors: closed({
    jsonapi: ref("JsonApiMember"),
    errors: {
      type: "array",
      minItems: 1,
      items: closed({ ...jsonApiError, links: closed({ via: href }) }, [
        "status",
        "code",
        "title",
        "detail",
        "links",
      ]),
    },
  }),
  JsonApiMember: JSONAPI_MEMBER_SCHEMA,
  Complaint: closed({
    type: { const: "dnc_complaint" },
    id: { type: "string", pattern: "^[0-9a-f]{32}$" },
    attributes: closed(
      Object.fromEntries(
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
    ),
    relationships: { type: "array", maxItems: 0 },
    meta: { type: "array", maxItems: 0 },
    links: closed({
      self: {
        type: "string",
        pattern: "^https?://",
        description: "Absolute; the request URL as sent (without the key), so not always an RFC 3986 URI.",
      },
    }),
  }),
  ComplaintEnvelope: closed({
    data: { type: "array", items: ref("Complaint") },
    meta: closed({
      "records-this-page": { type: "integer", minimum: 0 },
      "record-total": { type: "integer", minimum: 0, description: "Exact; as the live service spells it." },
      "records-total": {
        type: "integer",
        minimum: 0,
        description: "The same total, as its documentation spells it.",
      },
    }),
    links: closed({
      self: {
        type: "string",
        pattern: "^https?://",
        description: "Absolute; the request URL as sent (without the key), so not always an RFC 3986 URI.",
      },
    }),
  }),
  NodeTypeRelationship: closed({
    data: { type: "null" },
    links: closed({ self: href }),
  }),
  Notice: closed(
    {
      type: { const: "early_termination_notice" },
      id: { type: "string", format: "uuid" },
      links: closed({ self: href }),
      attributes: {
        type: "object",
        additionalProperties: false,
        description: "Every attribute, or those a sparse fieldset names.",
        properties: NOTICE_ATTRIBUTE_SCHEMAS,
      },
      relationships: closed({ node_type: ref("NodeTypeRelationship") }),
    },
    ["type", "id", "links", "attributes"],
  ),
  NoticeDocument: closed({
    jsonapi: ref("JsonApiMember"),
    data: { type: "array", items: ref("Notice") },
    meta: closed({ count: { type: "integer", minimum: 0, description: "Exact." } }),
    links: {
      ...closed({ self: href, next: href, prev: href, first: href, last: href }, ["self"]),
      description:
        "`next` and `last` while records remain after this page; `prev` and `first` past the first.",
    },
  }),
  NodeTypeDocument: closed({
    jsonapi: ref("JsonApiMember"),
    data: { type: "null" },
    links: closed({ self: href }),
  }),
  StatusDocument: closed({
    data: {
      type: "array",
      items: closed({
        type: { const: "collection_status" },
        id: { type: "string", example: "dnc-complaints" },
        attributes: closed({
          path: { type: "string" },
          "record-count": { type: "integer", minimum: 0 },
          "newest-created-date": { type: ["string", "null"] },
          "last-updated": { type: ["string", "null"], format: "date-time" },
          "last-mirrored": { type: ["string", "null"], format: "date-time" },
          "next-update-due": { type: "string", format: "date-time" },
          overdue: { type: "boolean" },
          schedule: { type: "string" },
        }),
      }),
    },
    meta: closed({ time: { type: "string", format: "date-time" } }),
    links: closed({
      self: {
        type: "string",
        pattern: "^https?://",
        description: "Absolute; the request URL as sent (without the key), so not always an RFC 3986 URI.",
      },
    }),
  }),
  Health: closed({ status: { type: "string", enum: ["live", "ready", "not ready"] } }),
};

/** What the contract does not cover, said in the document and in docs/api.md. */
export const OPENAPI_UNCHECKED =
  'Pages for people (HTML, and the files they load: `/`, `/docs`, `/explore`, `/signup` and its form, `/assets/`) and CORS preflights (`OPTIONS`) are not described. Any other answer not described here is a 4xx or 5xx with the gateway\'s `{"error":{"code","message"}}` body (for example 404 `NOT_FOUND` for an unknown path, 405 `METHOD_NOT_ALLOWED`).';

/** The OpenAPI 3.1 description of the API, built from the same lists the parsers use. */
export function openApiDocument(serverUrl: string): Record<string, unknown> {
  const paths = apiPaths();
  addExportFormats(paths);
  Object.assign(paths, countsPaths());
  return {
    openapi: "3.1.0",
    info: {
      title: "ftcapi: FTC Do Not Call complaints and HSR early-termination notices",
      version: "0",
      description: `A drop-in replacement for api.ftc.gov: read-only JSON behind API keys. Unknown parameters are refused with 400, never ignored (unless the server runs with \`--ignore-unknown-parameters\`, which names them in \`Ignored-Parameters\`). Every answer of the test suites is checked against this document. ${OPENAPI_UNCHECKED}`,
    },
    servers: [{ url: serverUrl }],
    security: [{ headerKey: [] }, { queryKey: [] }],
    paths,
    components: {
      securitySchemes: {
        headerKey: { type: "apiKey", in: "header", name: "X-Api-Key" },
        queryKey: { type: "apiKey", in: "query", name: "api_key" },
      },
      schemas: { ...SCHEMAS, ...COUNTS_SCHEMAS },
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
  const cached = { etag: true, lastModified: true, ignored: true };
  return {
    [COMPLAINTS.path]: {
      get: {
        operationId: "listComplaints",
        summary: "List Do Not Call complaints, newest first, with the exact total",
        parameters: complaintParameters,
        responses: {
          ...success("A page of complaints.", COMPLAINTS.contentType, ref("ComplaintEnvelope"), cached),
          ...collectionErrors("complaints", false),
        },
      },
    },
    [`${COMPLAINTS.path}/{id}`]: {
      get: {
        operationId: "getComplaint",
        summary: "One complaint, in the list's envelope",
        parameters: [
          { name: "id", in: "path", required: true, schema: { type: "string", pattern: "^[0-9a-f]{32}$" } },
        ],
        responses: {
          ...success("The complaint.", COMPLAINTS.contentType, ref("ComplaintEnvelope"), cached),
          ...collectionErrors("complaints", true),
        },
      },
    },
    [NOTICES.path]: {
      get: {
        operationId: "listNotices",
        summary: "List early-termination notices (Drupal JSON:API query language)",
        description: `Filters as Drupal's JSON:API module takes them. Each field has four plain parameters that generated clients can send: \`filter[F]=value\` (equality), \`filter[F][operator]\` with \`filter[F][value]\`, or with repeated \`filter[F][value][]\` for operators taking several values. The long form with a key of your choosing is also accepted: \`filter[k][condition][path]=F\`, \`filter[k][condition][operator]\`, \`filter[k][condition][value]\` (or \`[value][]\`), \`filter[k][condition][memberOf]=g\`, and groups \`filter[g][group][conjunction]=AND|OR\` (optionally \`[memberOf]\`). Fields: ${Object.keys(NOTICE_FIELDS).join(", ")}. Operators: ${OPERATORS.join(", ")}. Text compares without regard to case.`,
        parameters: noticeParameters,
        responses: {
          ...success("A page of notices.", NOTICES.contentType, ref("NoticeDocument"), cached),
          ...collectionErrors("notices", false),
        },
      },
    },
    [`${NOTICES.path}/{id}`]: {
      get: {
        operationId: "getNotice",
        summary: "One notice, as an array of one",
        parameters: ONE_NOTICE_PARAMETERS,
        responses: {
          ...success("The notice, as an array of one.", NOTICES.contentType, ref("NoticeDocument"), {
            etag: false,
            lastModified: true,
            ignored: true,
          }),
          ...collectionErrors("notices", true),
        },
      },
    },
    [`${NOTICES.path}/{id}/relationships/node_type`]: {
      get: {
        operationId: "getNoticeNodeType",
        summary: "The notice's `node_type` relationship, always empty (as Drupal answers it)",
        parameters: ONE_NOTICE_PARAMETERS.filter((parameter) => parameter !== FIELDSET_PARAMETER),
        responses: {
          ...success("An empty relationship.", NOTICES.contentType, ref("NodeTypeDocument"), {
            etag: false,
            lastModified: true,
            ignored: true,
          }),
          ...collectionErrors("notices", true),
        },
      },
    },
    "/v0/status": {
      get: {
        operationId: "getStatus",
        summary: "Per collection: record count, newest record, last update, next update due",
        description: "Takes no parameter but the key. No ETag and no Last-Modified: always answered fresh.",
        responses: {
          "200": {
            description: "The status of each collection.",
            headers: { ...KEYED_HEADERS, ...NO_CACHE },
            content: json(ref("StatusDocument")),
          },
          "400": {
            description: "`UNKNOWN_PARAMETER` (a JSON:API error document), or `HTTPS_REQUIRED`.",
            headers: KEYED_HEADERS,
            content: json({ oneOf: [ref("GatewayError"), ref("JsonApiErrors")] }),
          },
          ...GATEWAY_RESPONSES,
        },
      },
    },
    "/openapi.json": {
      get: {
        operationId: "getOpenApiDocument",
        summary: "This document (no key; HTTPS only)",
        security: [],
        responses: {
          "200": { description: "The OpenAPI document.", content: json({ type: "object" }) },
          "400": gatewayError("`HTTPS_REQUIRED` over plain HTTP."),
        },
      },
    },
    "/health/live": {
      get: {
        operationId: "getLiveness",
        summary: "The process answers (no key, plain HTTP or HTTPS)",
        security: [],
        responses: { "200": { description: "Live.", content: json(ref("Health")) } },
      },
    },
    "/health/ready": {
      get: {
        operationId: "getReadiness",
        summary: "Every database answers a query within a second (no key, plain HTTP or HTTPS)",
        security: [],
        responses: {
          "200": { description: "Ready.", content: json(ref("Health")) },
          "503": { description: "Not ready.", headers: RETRY_AFTER, content: json(ref("Health")) },
        },
      },
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Counts and export, described apart: the shapes docs/api.md states ("Counts", "Export").
// ---------------------------------------------------------------------------------------------

/** Count options shared by both collections' counts endpoints. */
const COUNT_OPTION_PARAMETERS = [
  {
    name: "min_count",
    in: "query",
    schema: { type: "integer", minimum: 1, default: 1 },
    description: "Only groups with at least this many records.",
  },
  {
    name: "limit",
    in: "query",
    schema: { type: "integer", minimum: 1, maximum: 100_000, default: 1000 },
    description:
      "The most groups in the answer. Paging parameters (`offset`, `items_per_page`, `page[...]`) are refused with 400.",
  },
  {
    name: "sort",
    in: "query",
    schema: { type: "string", enum: ["-count", "key"], default: "-count" },
    description:
      "`-count`: count descending, ties by key ascending; `key`: by the group's values in `by` order.",
  },
];

const countsMeta = (byValues: string[]) =>
  closed({
    by: { type: "array", minItems: 1, maxItems: 2, items: { enum: byValues } },
    "record-total": { type: "integer", minimum: 0, description: "Records matching the filters." },
    "group-total": {
      type: "integer",
      minimum: 0,
      description: "Groups with at least `min_count` (before `limit`).",
    },
    "groups-this-page": { type: "integer", minimum: 0, description: "`data.length`." },
  });

/** The counts documents' schemas: one member per `by` field (only those asked for), then `count`. */
const COUNTS_SCHEMAS = {
  ComplaintCounts: closed({
    data: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["count"],
        minProperties: 2,
        maxProperties: 3,
        properties: {
          ...Object.fromEntries(
            Object.values(COMPLAINT_COUNT_MEMBERS).map((member) => [member, { type: "string" }]),
          ),
          count: { type: "integer", minimum: 1 },
        },
      },
    },
    meta: countsMeta(Object.keys(COMPLAINT_COUNT_MEMBERS)),
    links: closed({
      self: {
        type: "string",
        pattern: "^https?://",
        description: "Absolute; the request URL as sent (without the key), so not always an RFC 3986 URI.",
      },
    }),
  }),
  NoticeCounts: closed({
    data: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["count"],
        minProperties: 2,
        maxProperties: 2,
        properties: {
          year: { type: ["string", "null"], pattern: "^\\d{4}$" },
          month: { type: ["string", "null"], pattern: "^\\d{4}-\\d{2}$" },
          count: { type: "integer", minimum: 1 },
        },
      },
    },
    meta: countsMeta([...NOTICE_COUNT_FIELDS]),
    links: closed({
      self: {
        type: "string",
        pattern: "^https?://",
        description: "Absolute; the request URL as sent (without the key), so not always an RFC 3986 URI.",
      },
    }),
  }),
};

/** `GET /v0/dnc-complaints/counts` and `GET /v0/hsr-early-termination-notices/counts`. */
function countsPaths(): Record<string, unknown> {
  const cached = { etag: true, lastModified: true, ignored: true };
  // `subject` is described below, after the list's filters, in words of its own for counts.
  const complaintFilters = COMPLAINT_PARAMETERS.filter(
    (name) => !["sort_by", "sort_order", "items_per_page", "offset", "subject"].includes(name),
  ).map((name) => ({
    name,
    in: "query",
    ...COMPLAINT_PARAMETER_DOCS[name],
    description: `${COMPLAINT_PARAMETER_DOCS[name].description} In counts, filters combine freely (no "at most one of"); \`city\` without \`state\` matches that city in every state.`,
  }));
  const noticeFilters = noticeParameters.filter(
    (parameter) =>
      ![
        "sort",
        "page[limit]",
        "page[offset]",
        "fields[early_termination_notice]",
        "sort_by",
        "sort_order",
        "items_per_page",
        "offset",
      ].includes(String(parameter.name)),
  );
  return {
    [`${COMPLAINTS.path}/counts`]: {
      get: {
        operationId: "countComplaints",
        summary: "Complaints counted by one or two fields",
        parameters: [
          {
            name: "by",
            in: "query",
            required: true,
            schema: { type: "string", example: "state,created_date" },
            description: `One or two distinct fields, comma-separated: ${Object.keys(COMPLAINT_COUNT_MEMBERS).join(", ")}. Each group has one member per field, named as the record attribute.`,
          },
          ...complaintFilters,
          {
            name: "subject",
            in: "query",
            schema: { type: "string" },
            description: "Exact subject, any case, surrounding spaces ignored.",
          },
          ...COUNT_OPTION_PARAMETERS,
        ],
        responses: {
          ...success("The groups.", "application/json", ref("ComplaintCounts"), cached),
          ...collectionErrors("complaints", false),
        },
      },
    },
    [`${NOTICES.path}/counts`]: {
      get: {
        operationId: "countNotices",
        summary: "Notices counted by year or month of `date` (null: no date)",
        parameters: [
          {
            name: "by",
            in: "query",
            required: true,
            schema: { type: "string", enum: [...NOTICE_COUNT_FIELDS] },
          },
          ...noticeFilters,
          ...COUNT_OPTION_PARAMETERS,
        ],
        responses: {
          ...success("The groups.", "application/json", ref("NoticeCounts"), cached),
          ...collectionErrors("notices", false),
        },
      },
    },
  };
}

const FORMAT_PARAMETER = {
  name: "format",
  in: "query",
  schema: { type: "string", enum: ["json", "csv", "ndjson"], default: "json" },
  description:
    "`json`: a page (the default); `csv` or `ndjson`: every matching record in one streamed answer, same filters and sort. Without `format`, `Accept: text/csv` or `Accept: application/x-ndjson` asks for the same. Paging parameters with an export: 400 `EXPORT_NOT_PAGED`. Each 10,000 records started cost one request of the key's limit, taken before streaming (429 `EXPORT_OVER_RATE_LIMIT`); `DEMO_KEY` exports at most 10,000 records (403 `EXPORT_TOO_LARGE_FOR_DEMO_KEY`).",
};

const EXPORT_HEADERS = {
  "Content-Disposition": header('Exports only: `attachment; filename="..."`.'),
  "X-Record-Total": header("Exports only: the records the export holds.", {
    type: "string",
    pattern: "^\\d+$",
  }),
};

/** Adds `format` and the CSV and NDJSON answers to both list operations. */
function addExportFormats(paths: Record<string, unknown>): void {
  for (const [path, csvDescription] of [
    [
      COMPLAINTS.path,
      "The FTC extract's exact header and value formats (`ftcapi import dnc` reads it back, same ids).",
    ],
    [NOTICES.path, "The format `ftcapi import notices` reads."],
  ] as const) {
    const operation = (
      paths[path] as { get: { parameters: unknown[]; responses: Record<string, Record<string, unknown>> } }
    ).get;
    operation.parameters = [...operation.parameters, FORMAT_PARAMETER];
    const ok = operation.responses["200"]!;
    ok.description = `${ok.description} With \`format=csv|ndjson\`: every matching record, \`Cache-Control: no-store\`, no ETag.`;
    ok.headers = {
      ...(ok.headers as Record<string, unknown>),
      ...EXPORT_HEADERS,
      ETag: header("JSON pages only."),
      "Cache-Control": header("`no-cache` for JSON pages, `no-store` for exports.", {
        type: "string",
        enum: ["no-cache", "no-store"],
      }),
    };
    ok.content = {
      ...(ok.content as Record<string, unknown>),
      "text/csv": { schema: { type: "string", description: csvDescription } },
      "application/x-ndjson": {
        schema: {
          type: "string",
          description: `One resource object a line, each equal to an item of a page's \`data\` (${path === COMPLAINTS.path ? "Complaint" : "Notice"}).`,
        },
      },
    };
    operation.responses["403"] = gatewayError(
      "`API_KEY_MISSING`, `API_KEY_INVALID`, `API_KEY_DISABLED`, or `EXPORT_TOO_LARGE_FOR_DEMO_KEY`.",
    );
    operation.responses["429"] = gatewayError(
      "`OVER_RATE_LIMIT`, or `EXPORT_OVER_RATE_LIMIT` saying how many requests the export needs.",
      { ...RETRY_AFTER, ...KEYED_HEADERS },
    );
  }
}
