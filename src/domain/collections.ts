import { COMPLAINT_SCHEDULE, NOTICE_SCHEDULE, type PublicationSchedule } from "./publication-calendar.js";

/**
 * One collection the service publishes, said once: every layer that names a collection (routes,
 * freshness and status, the change-detection service, writers, import and mirror commands, the
 * OpenAPI document) reads it from here.
 */
export interface Collection {
  /** The collection's name in the API: `/v0/status` ids, the freshness tables' keys. */
  readonly name: string;
  /** The list endpoint; a record is at `${path}/{id}`. */
  readonly path: string;
  /** The word the command line uses (`ftcapi import dnc`, `ftcapi mirror --collection notices`). */
  readonly cliName: string;
  /** The `type` of its resource objects. */
  readonly resourceType: string;
  /** The media type of its answers, errors included. */
  readonly contentType: string;
  /** When the FTC publishes it. */
  readonly schedule: PublicationSchedule;
}

/** Do Not Call complaints: the FTC's daily extracts, `/v0/dnc-complaints`. */
export const COMPLAINTS: Collection = Object.freeze({
  name: "dnc-complaints",
  path: "/v0/dnc-complaints",
  cliName: "dnc",
  resourceType: "dnc_complaint",
  contentType: "application/json",
  schedule: COMPLAINT_SCHEDULE,
});

/** HSR early-termination notices: Drupal's JSON:API, `/v0/hsr-early-termination-notices`. */
export const NOTICES: Collection = Object.freeze({
  name: "hsr-early-termination-notices",
  path: "/v0/hsr-early-termination-notices",
  cliName: "notices",
  resourceType: "early_termination_notice",
  contentType: "application/vnd.api+json",
  schedule: NOTICE_SCHEDULE,
});

/** Every collection, in the order `/v0/status` lists them. */
export const COLLECTIONS: readonly Collection[] = Object.freeze([COMPLAINTS, NOTICES]);
