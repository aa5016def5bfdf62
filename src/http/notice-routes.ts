import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ApiError } from "../domain/api-error.js";
import { NOTICES } from "../domain/collections.js";
import { countsDocument } from "../domain/count-options.js";
import { JSONAPI_MEMBER } from "../domain/error-body.js";
import { type ExportFormat, exportRequestOf } from "../domain/export-format.js";
import { NOTICE_ID_PATTERN } from "../domain/notice.js";
import { isNoticeCountParameterName, parseNoticeCountQuery } from "../domain/notice-count-query.js";
import { encodeQuery, noticeDocument } from "../domain/notice-envelope.js";
import { noticeCsvHeader, noticeCsvText, noticeNdjsonText } from "../domain/notice-export-text.js";
import { isNoticeParameterName } from "../domain/notice-parameters.js";
import { type NoticeQuery, parseNoticeQuery } from "../domain/notice-query.js";
import type { NoticeListRequest, NoticeReader } from "../store/notice-reader.js";
import {
  ANSWER_CACHE_CHARACTERS,
  AnswerCache,
  type AnswerCacheWatcher,
  type AnswerKeeper,
  notModifiedSince,
  sendAnswer,
} from "./answer-cache.js";
import { chargeExport, type ExportOptions, sendExport } from "./export-answer.js";
import { parametersToParse, publicBaseUrl, selfUrlOf, type UnknownParameters } from "./request-urls.js";

declare module "fastify" {
  interface FastifyRequest {
    /**
     * Set on JSON:API routes: the public base URL the request's own URL is under, for `links.via`
     * of error documents (`selfUrlOf`, written only when an error is).
     */
    jsonApiBase: string | undefined;
  }
}

/**
 * `GET /v0/hsr-early-termination-notices`, `GET .../{id}` (spec 4.1, 4.2) and the `node_type`
 * relationship each record links to, answered as Drupal's JSON:API module answers. With
 * `format=csv` or `format=ndjson` (or such an Accept), the list is an export (see `sendExport`).
 * `watchCache` is told of the route's answer cache, so that the metrics can read its figures.
 */
export function registerNoticeRoutes(
  app: FastifyInstance,
  notices: NoticeReader,
  baseUrl: string | undefined,
  exportOptions: ExportOptions,
  watchCache: AnswerCacheWatcher = () => {},
  unknownParameters: UnknownParameters = "refuse",
  lane?: AnswerKeeper,
): void {
  app.decorateRequest("jsonApiBase", undefined);
  const requestOf = (req: FastifyRequest) => requestUrlsOf(req, baseUrl);
  const release = (body: Buffer) => notices.release(body);

  // Lists are kept as answered until the notices change, as complaint lists are (answer-cache.ts).
  const cache = new AnswerCache(notices.version, ANSWER_CACHE_CHARACTERS.notices);
  watchCache(cache);

  app.get(NOTICES.path, async (req, reply) => {
    const request = listRequestOf(req, reply, baseUrl, unknownParameters);
    if ("format" in request)
      return exportNotices({ notices, baseUrl, exportOptions }, req, reply, request.query, request.format);
    const { self, list } = request;
    const answer = await cache.answer(self, (version) => notices.listBytes(list, version));
    return sendAnswer(req, reply, answer, NOTICES.contentType, { lane, cache, release });
  });

  // Counts by year or month (docs/api.md): JSON, errors as the list's; not in the cache metrics.
  const countsCache = new AnswerCache(notices.version, ANSWER_CACHE_CHARACTERS.noticeCounts);
  app.get(`${NOTICES.path}/counts`, async (req, reply) => {
    const { self: selfUrl, pairs } = requestOf(req);
    const query = parseNoticeCountQuery(
      parametersToParse(pairs, isNoticeCountParameterName, unknownParameters, reply),
    );
    const answer = await countsCache.answer(selfUrl, async () =>
      countsDocument(query.by, query.by, await notices.countGroups(query), selfUrl),
    );
    return sendAnswer(req, reply, answer, "application/json", { lane, cache: countsCache });
  });

  registerNoticeRecordRoutes(app, notices, baseUrl, unknownParameters, lane);
}

/** `GET .../{id}` and its `node_type` relationship (spec 4.2): one notice, its answer kept as pages are. */
function registerNoticeRecordRoutes(
  app: FastifyInstance,
  notices: NoticeReader,
  baseUrl: string | undefined,
  unknownParameters: UnknownParameters,
  lane: AnswerKeeper | undefined,
): void {
  const requestOf = (req: FastifyRequest) => requestUrlsOf(req, baseUrl);
  // A record's answer is kept until the notices change, as pages are; it carries no ETag (spec 4.2).
  const records = new AnswerCache(notices.version, ANSWER_CACHE_CHARACTERS.noticeRecords);
  app.get<{ Params: { id: string } }>(`${NOTICES.path}/:id`, async (req, reply) => {
    const { base, path, self, pairs } = requestOf(req);
    const { fieldPairs, revision } = singleRecordParameters(
      parametersToParse(pairs, isOneRecordParameter, unknownParameters, reply),
    );
    const answer = await records.answer(self, async () =>
      JSON.stringify(
        noticeDocument([await find(notices, req.params.id, revision)], 1, {
          collectionUrl: `${base}${NOTICES.path}`,
          path,
          pairs,
          query: parseNoticeQuery(fieldPairs),
          paged: false,
        }),
      ),
    );
    return sendAnswer(req, reply, answer, NOTICES.contentType, { lane, cache: records, tagged: false });
  });

  app.get<{ Params: { id: string } }>(`${NOTICES.path}/:id/relationships/node_type`, async (req, reply) => {
    const { self, pairs } = requestOf(req);
    const { fieldPairs, revision } = singleRecordParameters(
      parametersToParse(pairs, isOneRecordParameter, unknownParameters, reply),
    );
    if (fieldPairs.length > 0) throw notForOneRecord(fieldPairs[0]![0]);
    await find(notices, req.params.id, revision);
    reply.type(NOTICES.contentType);
    // `Last-Modified` on the answer, and a 304 when it is not newer (see `notModifiedSince`).
    if (notModifiedSince(req, reply, (await notices.version.current()).updatedAtSeconds))
      return reply.code(304).send();
    return {
      jsonapi: JSONAPI_MEMBER,
      data: null,
      links: { self: { href: self } },
    };
  });
}

/** The request's URLs and parameters (`selfUrlOf`) under its public base; its errors get `links.via`. */
function requestUrlsOf(req: FastifyRequest, baseUrl: string | undefined) {
  const base = publicBaseUrl(req, baseUrl);
  req.jsonApiBase = base;
  return { base, ...selfUrlOf(req.url, base) };
}

/**
 * A list request's parameters checked (unknown ones, the export format) for the reader, or the
 * export it asks for. Synchronous, so that what it decodes and encodes is garbage once it
 * returns: while the request waits for its page, it holds its raw URL (which the reader's
 * request slices, without a copy), not a second or third copy of a query that may be 16 KB.
 */
function listRequestOf(
  req: FastifyRequest,
  reply: FastifyReply,
  baseUrl: string | undefined,
  unknownParameters: UnknownParameters,
): { self: string; list: NoticeListRequest } | { format: Exclude<ExportFormat, "json">; query: NoticeQuery } {
  const { base, path, self, pairs: requestPairs } = requestUrlsOf(req, baseUrl);
  const { format, pairs } = exportRequestOf(
    parametersToParse(requestPairs, isListParameterName, unknownParameters, reply),
    req.headers.accept,
    isPagingParameter,
  );
  if (format !== "json") return { format, query: parseNoticeQuery(pairs) };
  // The reader parses the parameters itself: with the notice thread, off the event loop. Nearly
  // always they are the request's own; otherwise (a parameter ignored, `format=json`) they go too.
  const parameters = pairs.length === requestPairs.length ? undefined : encodeQuery(pairs);
  const mark = req.url.indexOf("?");
  const rawQuery = mark === -1 ? "" : req.url.slice(mark + 1);
  return { self, list: { rawQuery, parameters, collectionUrl: `${base}${NOTICES.path}`, path } };
}

/** What an export of notices reads: the reader, the public base URL, the export's limits. */
interface NoticeExportContext {
  readonly notices: NoticeReader;
  readonly baseUrl: string | undefined;
  readonly exportOptions: ExportOptions;
}

/** Every notice the query matches, from one snapshot, charged to the key before it is sent. */
async function exportNotices(
  { notices, baseUrl, exportOptions }: NoticeExportContext,
  req: FastifyRequest,
  reply: FastifyReply,
  query: NoticeQuery,
  format: Exclude<ExportFormat, "json">,
) {
  const { total, records } = await notices.export(query);
  await chargeExport(req, reply, total, exportOptions);
  const collectionUrl = `${publicBaseUrl(req, baseUrl)}${NOTICES.path}`;
  async function* texts() {
    for (let start = 0; start < records.length; start += NOTICE_EXPORT_BATCH) {
      const batch = records.slice(start, start + NOTICE_EXPORT_BATCH);
      yield format === "csv" ? noticeCsvText(batch) : noticeNdjsonText(batch, collectionUrl, query.fields);
    }
  }
  return sendExport(req, reply, {
    format,
    name: "hsr-early-termination-notices",
    total,
    header: format === "csv" ? noticeCsvHeader() : undefined,
    texts: texts(),
    close: async () => {},
  });
}

/** Notices written per chunk of an export. */
const NOTICE_EXPORT_BATCH = 1_000;

/** A list request's parameter names: the notice query's and `format`. */
function isListParameterName(name: string): boolean {
  return name === "format" || isNoticeParameterName(name);
}

/** Paging parameters (Drupal's and the plain ones), which an export refuses. */
function isPagingParameter(name: string): boolean {
  return name === "offset" || name === "items_per_page" || name === "page" || name.startsWith("page[");
}

/** A record's URL takes `resourceVersion` (as its links carry) and a sparse fieldset; nothing else. */
function singleRecordParameters(pairs: ReadonlyArray<readonly [string, string]>): {
  fieldPairs: Array<readonly [string, string]>;
  revision: number | undefined;
} {
  const fieldPairs: Array<readonly [string, string]> = [];
  let revision: number | undefined;
  for (const pair of pairs) {
    const [name, value] = pair;
    if (name === "resourceVersion") {
      const match = /^id:(\d{1,15})$/.exec(value);
      if (!match || revision !== undefined) {
        throw new ApiError("INVALID_PARAMETER", {
          parameter: name,
          detail: `The parameter 'resourceVersion' takes the form id:<revision number>, given once, as records' links show; got '${value}'.`,
        });
      }
      revision = Number(match[1]);
    } else if (name.startsWith("fields[")) {
      fieldPairs.push(pair);
    } else {
      throw notForOneRecord(name);
    }
  }
  return { fieldPairs, revision };
}

/** Whether a record's URL takes a parameter of this name. */
function isOneRecordParameter(name: string): boolean {
  return name === "resourceVersion" || name.startsWith("fields[");
}

function notForOneRecord(name: string): ApiError {
  return new ApiError("UNKNOWN_PARAMETER", {
    parameter: name,
    detail: `The query parameter '${name}' does not apply to one notice; a record's URL takes resourceVersion, fields[early_termination_notice] and api_key.`,
  });
}

async function find(notices: NoticeReader, rawId: string, revision: number | undefined) {
  const id = rawId.toLowerCase();
  const notice = NOTICE_ID_PATTERN.test(id) ? await notices.findById(id) : undefined;
  if (!notice) {
    throw new ApiError("RECORD_NOT_FOUND", {
      detail: `No early_termination_notice has the id '${rawId}'. Notice ids are UUIDs, such as 0254a428-d492-4d98-8bc6-e704bad804b7.`,
    });
  }
  if (revision !== undefined && revision !== notice.revision) {
    throw new ApiError("RECORD_NOT_FOUND", {
      parameter: "resourceVersion",
      detail: `The notice '${notice.id}' is at revision ${notice.revision}; earlier revisions are not kept, so id:${revision} cannot be shown.`,
    });
  }
  return notice;
}
