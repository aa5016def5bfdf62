import { COMPLAINTS, NOTICES } from "../domain/collections.js";
import { type AppDeps, buildApp } from "./build-app.js";

/**
 * Requests the server answers itself before it listens, each `WARM_UP_ROUNDS` times: list pages of
 * both collections with each kind of parameter a client sends (filters, sorts, offsets, limits, a
 * fieldset), so that the event loop's own code for a request (routing, the gateway's hooks, the
 * parse, the answer cache, the hand-off to the notice thread, the envelope and the reply) has been
 * compiled before a client's first request. Run cold, that code made the first hundred requests
 * after a start cost about half a millisecond more each (docs/performance.md).
 */
const WARM_UP_PATHS: readonly string[] = [
  ...[0, 7, 50, 120, 400].map((offset) => `${NOTICES.path}?page[offset]=${offset}`),
  `${NOTICES.path}?page[limit]=5&page[offset]=3`,
  `${NOTICES.path}?title=capital`,
  `${NOTICES.path}?keywords=%22fund%20iii%22`,
  `${NOTICES.path}?sort=-date&page[offset]=20`,
  `${NOTICES.path}?sort=title,-created`,
  `${NOTICES.path}?sort_by=changed&sort_order=ASC`,
  `${NOTICES.path}?filter[title][operator]=CONTAINS&filter[title][value]=holdings`,
  `${NOTICES.path}?filter[t][condition][path]=acquired-entities&filter[t][condition][operator]=STARTS_WITH&filter[t][condition][value]=a`,
  `${NOTICES.path}?filter[d][condition][path]=date&filter[d][condition][operator]=BETWEEN&filter[d][condition][value][]=2005-01-01&filter[d][condition][value][]=2015-12-31`,
  `${NOTICES.path}?filter[o][group][conjunction]=OR&filter[a][condition][path]=acquiring-party&filter[a][condition][operator]=STARTS_WITH&filter[a][condition][value]=b&filter[a][condition][memberOf]=o&filter[e][condition][path]=tags&filter[e][condition][operator]=IS%20NOT%20NULL&filter[e][condition][memberOf]=o`,
  `${NOTICES.path}?fields[early_termination_notice]=title,date`,
  ...[0, 30, 500].map((offset) => `${COMPLAINTS.path}?offset=${offset}`),
  `${COMPLAINTS.path}?state=Ohio&offset=10`,
  `${COMPLAINTS.path}?state=Texas&city=Austin`,
  `${COMPLAINTS.path}?area_code=212&items_per_page=10`,
  `${COMPLAINTS.path}?is_robocall=true&subject=Other`,
  `${COMPLAINTS.path}?created_date_from=2025-01-01%2000:00:00&created_date_to=2025-01-02%2000:00:00`,
  `${COMPLAINTS.path}?violation_date_from=2025-01-01%2000:00:00&violation_date_to=2025-01-03%2000:00:00`,
  `${COMPLAINTS.path}?company_phone_number=2025550100`,
  `${COMPLAINTS.path}?sort_order=ASC&items_per_page=25`,
];

/** How many times each warm-up path is asked: a page's first ask computes it, later asks read the answer cache. */
const WARM_UP_ROUNDS = 4;

/** What `warmUp` did. */
export interface WarmUpOutcome {
  readonly requests: number;
  /** Answers other than 200 (a collection without data answers 200 too: an empty page). */
  readonly unexpected: number;
  readonly seconds: number;
}

/**
 * Answers `WARM_UP_PATHS` (the notices' only when the collection holds some) in process (`inject`,
 * no socket) through an app of its own built from
 * the server's `deps`: the same modules, readers and notice thread, but its own answer caches, no
 * metrics, no kept-answer lane, request logging above `info`, and a gateway that checks no key or
 * limit (`AppDeps.warmUp`). That app never listens and is closed before this returns, so nothing
 * a client can reach skips the gateway; the server's own app, built afterwards, starts with its
 * caches and counters empty.
 */
export async function warmUp(deps: AppDeps): Promise<WarmUpOutcome> {
  const started = performance.now();
  const app = await buildApp({
    ...deps,
    logger: deps.logger.child({}, { level: "warn" }),
    metrics: undefined,
    keptAnswers: undefined,
    serverFactory: undefined,
    warmUp: true,
  });
  let requests = 0;
  let unexpected = 0;
  // Notices only when there are some: an empty collection's reader starts no thread (NoticeThread).
  const noticesHeld = (await deps.notices.recordCount()) > 0;
  const paths = WARM_UP_PATHS.filter((url) => noticesHeld || !url.startsWith(NOTICES.path));
  try {
    for (let round = 0; round < WARM_UP_ROUNDS; round++)
      for (const url of paths) {
        const res = await app.inject({ method: "GET", url, headers: { host: "localhost" } });
        requests++;
        if (res.statusCode !== 200) unexpected++;
      }
  } finally {
    await app.close();
  }
  return { requests, unexpected, seconds: (performance.now() - started) / 1000 };
}
