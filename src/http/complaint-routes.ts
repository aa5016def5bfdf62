import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ApiError } from "../domain/api-error.js";
import { COMPLAINTS } from "../domain/collections.js";
import { COMPLAINT_ID_PATTERN } from "../domain/complaint.js";
import {
  COMPLAINT_COUNT_MEMBERS,
  isComplaintCountParameterName,
  parseComplaintCountQuery,
} from "../domain/complaint-count-query.js";
import { complaintEnvelope } from "../domain/complaint-envelope.js";
import {
  complaintCsvHeader,
  complaintCsvText,
  complaintNdjsonText,
} from "../domain/complaint-export-text.js";
import type { ComplaintQuery } from "../domain/complaint-query.js";
import { isComplaintParameterName, parseComplaintQuery } from "../domain/complaint-query.js";
import { countsDocument } from "../domain/count-options.js";
import { type ExportFormat, exportRequestOf } from "../domain/export-format.js";
import type { ComplaintStore } from "../store/complaint-store.js";
import {
  ANSWER_CACHE_CHARACTERS,
  AnswerCache,
  type AnswerCacheWatcher,
  type AnswerKeeper,
  type CachedAnswer,
  sendAnswer,
} from "./answer-cache.js";
import { chargeExport, type ExportOptions, sendExport } from "./export-answer.js";
import {
  parametersToParse,
  publicBaseUrl,
  queryPairs,
  type UnknownParameters,
  withoutApiKey,
} from "./request-urls.js";

/**
 * `GET /v0/dnc-complaints`, `GET /v0/dnc-complaints/{id}` (spec 4.3, 4.4) and
 * `GET /v0/dnc-complaints/counts` (docs/api.md, "Counts"). Answers carry an ETag
 * and are kept in an AnswerCache until the data changes (at once on SQLite, within a second on
 * PostgreSQL); a matching If-None-Match gets 304. With `format=csv` or `format=ndjson` (or such an
 * Accept), the list is an export: every matching complaint, streamed (see `sendExport`).
 * `watchCache` is told of the route's answer cache, so that the metrics can read its figures.
 */
export function registerComplaintRoutes(
  app: FastifyInstance,
  complaints: ComplaintStore,
  baseUrl: string | undefined,
  exportOptions: ExportOptions,
  watchCache: AnswerCacheWatcher = () => {},
  unknownParameters: UnknownParameters = "refuse",
  lane?: AnswerKeeper,
): void {
  const cache = new AnswerCache(complaints.version, ANSWER_CACHE_CHARACTERS.complaints);
  watchCache(cache);
  const send = (req: FastifyRequest, reply: FastifyReply, answer: CachedAnswer, from: AnswerCache) =>
    sendAnswer(req, reply, answer, COMPLAINTS.contentType, { lane, cache: from });

  app.get(COMPLAINTS.path, async (req, reply) => {
    const { format, pairs } = exportRequestOf(
      parametersToParse(queryPairs(req.url), isListParameterName, unknownParameters, reply),
      req.headers.accept,
      isPagingParameter,
    );
    if (format !== "json")
      return exportComplaints(
        { complaints, baseUrl, exportOptions },
        req,
        reply,
        parseComplaintQuery(pairs),
        format,
      );
    const base = publicBaseUrl(req, baseUrl);
    const selfUrl = `${base}${withoutApiKey(req.url)}`;
    // Parsed only when no answer is kept: a kept answer's request (the same URL but its api_key)
    // parsed, and parses, to the same query.
    const answer = await cache.answer(selfUrl, async () => {
      const query = parseComplaintQuery(pairs);
      const page = await complaints.listRendered(query, `${base}${COMPLAINTS.path}`, selfUrl);
      return Buffer.from(page.buffer, page.byteOffset, page.byteLength);
    });
    return send(req, reply, answer, cache);
  });

  // Counts answers are kept as lists are, in a cache of their own (not in the
  // answer-cache metrics, which show each collection's list cache).
  const countsCache = new AnswerCache(complaints.version, ANSWER_CACHE_CHARACTERS.complaintCounts);
  app.get(`${COMPLAINTS.path}/counts`, async (req, reply) => {
    const query = parseComplaintCountQuery(
      parametersToParse(queryPairs(req.url), isComplaintCountParameterName, unknownParameters, reply),
    );
    const selfUrl = `${publicBaseUrl(req, baseUrl)}${withoutApiKey(req.url)}`;
    const answer = await countsCache.answer(selfUrl, async () => {
      const result = await complaints.countGroups(query);
      const members = query.by.map((field) => COMPLAINT_COUNT_MEMBERS[field]);
      return countsDocument(query.by, members, result, selfUrl);
    });
    return sendAnswer(req, reply, answer, "application/json", { lane, cache: countsCache });
  });

  // A stored complaint never changes, so its tag is its content's; kept until the data changes, as pages are.
  const records = new AnswerCache(complaints.version, ANSWER_CACHE_CHARACTERS.complaintRecords, "content");
  app.get<{ Params: { id: string } }>(`${COMPLAINTS.path}/:id`, async (req, reply) => {
    refuseAllButKey(parametersToParse(queryPairs(req.url), isKeyParameter, unknownParameters, reply));
    const base = publicBaseUrl(req, baseUrl);
    const selfUrl = `${base}${withoutApiKey(req.url)}`;
    const answer = await records.answer(selfUrl, async () => {
      const { id } = req.params;
      const complaint = COMPLAINT_ID_PATTERN.test(id) ? await complaints.findById(id) : undefined;
      if (!complaint) {
        throw new ApiError("RECORD_NOT_FOUND", {
          detail: `No complaint has the id '${id}'. Complaint ids are 32 lowercase hexadecimal characters.`,
        });
      }
      return JSON.stringify(complaintEnvelope([complaint], 1, `${base}${COMPLAINTS.path}`, selfUrl));
    });
    return send(req, reply, answer, records);
  });
}

function isKeyParameter(name: string): boolean {
  return name === "api_key";
}

/** One complaint takes no parameter but its key: any other is refused with a 400. */
function refuseAllButKey(pairs: ReadonlyArray<readonly [string, string]>): void {
  const unexpected = pairs.find(([name]) => !isKeyParameter(name));
  if (unexpected) {
    throw new ApiError("UNKNOWN_PARAMETER", {
      parameter: unexpected[0],
      detail: `The query parameter '${unexpected[0]}' is not supported when fetching one complaint; only api_key is.`,
    });
  }
}

/** What an export of complaints reads: the store, the public base URL, the export's limits. */
interface ExportContext {
  readonly complaints: ComplaintStore;
  readonly baseUrl: string | undefined;
  readonly exportOptions: ExportOptions;
}

/** Every complaint the query matches, from one snapshot, charged to the key before it is sent. */
async function exportComplaints(
  { complaints, baseUrl, exportOptions }: ExportContext,
  req: FastifyRequest,
  reply: FastifyReply,
  query: ComplaintQuery,
  format: Exclude<ExportFormat, "json">,
) {
  const exported = await complaints.export(query);
  try {
    await chargeExport(req, reply, exported.total, exportOptions);
  } catch (err) {
    await exported.close();
    throw err;
  }
  const recordBaseUrl = `${publicBaseUrl(req, baseUrl)}${COMPLAINTS.path}`;
  async function* texts() {
    for await (const batch of exported.batches()) {
      yield format === "csv" ? complaintCsvText(batch) : complaintNdjsonText(batch, recordBaseUrl);
    }
  }
  return sendExport(req, reply, {
    format,
    name: "dnc-complaints",
    total: exported.total,
    header: format === "csv" ? complaintCsvHeader() : undefined,
    texts: texts(),
    close: () => exported.close(),
  });
}

/** A list request's parameter names: the complaint query's and `format`. */
function isListParameterName(name: string): boolean {
  return name === "format" || isComplaintParameterName(name);
}

/** Paging parameters, which an export refuses. */
function isPagingParameter(name: string): boolean {
  return name === "offset" || name === "items_per_page";
}
