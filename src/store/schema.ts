import type { Generated } from "kysely";

/** Complaints: times in seconds; `state_key` and `city_key` are match keys (lowercase). */
export interface ComplaintTable {
  created_at: number;
  id: string;
  violation_at: number;
  phone: string;
  city: string;
  state: string;
  area_code: string;
  subject: string;
  robocall: string;
  state_key: string;
  city_key: string;
  /** The day of `violation_at` (days since 1970, rounded down): set by the writer on SQLite, computed on PostgreSQL. */
  violation_day: Generated<number>;
}

/**
 * Exact counts of complaints per day for each filterable dimension, kept in step with
 * `complaints` by the writer in the same transaction. Totals read these instead of the rows.
 */
export interface ComplaintCountTable {
  dimension: string;
  value: string;
  day: number;
  count: number;
}

/** Per-hour counts of the dimensions listed in `HOURLY_DIMENSIONS`; `hour` is hours since the epoch. */
export interface ComplaintHourCountTable {
  dimension: string;
  value: string;
  hour: number;
  count: number;
}

/**
 * Complaints per state (its match key), day of `created_at` and day of `violation_at` (days since
 * 1970), kept by the writers with the rows (migration 017): a state with a range of violation days
 * has its matches per created day from these.
 */
export interface ComplaintStateViolationTable {
  state_key: string;
  created_day: number;
  violation_day: number;
  count: number;
}

/**
 * Complaints per robocall flag, subject or area code (`dimension` `robocall`, `subject` or `area`,
 * `value` as stored), or per combination (`state_robocall`, `subject_robocall`, `state_subject`,
 * `state_subject_robocall`: `value` the state's match key, the subject and the flag, those named,
 * joined by U+001F), day of `created_at` and day of `violation_at` (days since 1970), kept by the
 * writers with the rows (migrations 020, 022, 024 and 030): as `complaint_state_violations` for a
 * state, each of these with a range of violation days has its matches per created day from them.
 */
export type FlagViolationDimension =
  | "robocall"
  | "subject"
  | "area"
  | "state_robocall"
  | "subject_robocall"
  | "state_subject"
  | "state_subject_robocall";

export interface ComplaintFlagViolationTable {
  dimension: FlagViolationDimension;
  value: string;
  created_day: number;
  violation_day: number;
  count: number;
}

/**
 * Complaints per robocall flag (`dimension` `robocall`, `value` as stored), hour of `created_at`
 * (hours since 1970) and day of `violation_at`, kept by the writers with the rows (migration 023):
 * the hour within a created day that holds a page of the flag with a range of violation days.
 */
export interface ComplaintFlagViolationHourTable {
  dimension: "robocall";
  value: string;
  created_hour: number;
  violation_day: number;
  count: number;
}

/**
 * Complaints per state (match key), robocall flag and subject (both as stored) and day of
 * `created_at` (days since 1970), kept by the writers with the rows (migration 018): a combination
 * of those filters has its total and the day that holds an offset from these.
 */
export interface ComplaintCombinationCountTable {
  state_key: string;
  robocall: string;
  subject: string;
  created_day: number;
  count: number;
}

/**
 * Complaints per area code, state (match key), robocall flag and subject (both as stored) and day
 * of `created_at`, kept by the writers with the rows (migration 025): a combination of an area
 * code with any of the other three has its matches per created day from these.
 */
export interface ComplaintAreaCombinationCountTable {
  area_code: string;
  state_key: string;
  robocall: string;
  subject: string;
  created_day: number;
  count: number;
}

/**
 * Complaints per city and state (match keys), robocall flag and subject (as stored) and day of
 * `created_at`, kept by the writers with the rows (migration 026): a city (in one state or in
 * every state) with the flag or a subject has its matches per created day from these.
 */
export interface ComplaintCityCombinationCountTable {
  city_key: string;
  state_key: string;
  robocall: string;
  subject: string;
  created_day: number;
  count: number;
}

/**
 * Complaints per city, area code and state (match keys, the code as stored), robocall flag and
 * subject and day of `created_at`, kept by the writers with the rows (migration 029): a city (in
 * one state or in every state) with an area code has its matches per created day from these.
 */
export interface ComplaintCityAreaCountTable {
  city_key: string;
  area_code: string;
  state_key: string;
  robocall: string;
  subject: string;
  created_day: number;
  count: number;
}

/**
 * Complaints per place (`place` `area`: `value` an area code as stored; `city`: a city's match key,
 * complaints with no city left out; `city_area`: a city's match key and an area code joined by
 * U+001F), day of `created_at`, day of `violation_at` (days since 1970), state (match key) and
 * robocall flag, kept by the writers with the rows (migration 031): an area code with a state or
 * the flag, or a city (perhaps with an area code), with a range of violation days, has its matches
 * per created day from these.
 */
export interface ComplaintPlaceViolationTable {
  place: "area" | "city" | "city_area";
  value: string;
  created_day: number;
  violation_day: number;
  state_key: string;
  robocall: string;
  count: number;
}

/** All complaints per minute of `created_at`; `minute` is minutes since the epoch (migration 016). */
export interface ComplaintMinuteCountTable {
  minute: number;
  count: number;
}

/**
 * Each caller number's complaints and the created time of its newest (seconds), kept by the
 * writers with the rows: the candidates of a counts request for numbers with N or more complaints.
 */
export interface ComplaintPhoneTotalTable {
  phone: string;
  count: number;
  newest_at: number;
}

export interface ApiKeyTable {
  id: Generated<number>;
  prefix: string;
  hash: string;
  email: string;
  first_name: string;
  last_name: string;
  use_text: string;
  status: "active" | "disabled";
  limit_per_hour: number | null;
  unlimited: number;
  created_at: number;
}

/** Hits per rate-limit subject per bucket (bucket = start second of a slice of the window). */
export interface RateBucketTable {
  subject: string;
  bucket: number;
  count: number;
}

/** Requests per key per hour (hour = start second), for `ftcapi keys usage`. */
export interface KeyUsageTable {
  key_id: number;
  hour: number;
  count: number;
}

export interface SettingTable {
  name: string;
  value: string;
}

/**
 * HSR early-termination notices: times in seconds, `date` as `YYYY-MM-DD`, absent values null.
 * `content_digest` fingerprints what the notice says, so imports recognise an unchanged notice.
 */
export interface NoticeTable {
  id: string;
  revision: number;
  title: string;
  transaction_number: string;
  acquiring_party: string | null;
  acquired_party: string | null;
  date: string | null;
  created_at: number;
  updated_at: number;
  content_digest: string;
}

/** The values of a notice's multi-value fields (`acquired-entities`, `tags`), one row each, in order. */
export interface NoticeValueTable {
  notice_id: string;
  field: string;
  position: number;
  value: string;
}

/**
 * When a collection's content last changed (seconds), and a number its writers increase in the same
 * transaction as they set `updated_at` (0 by default).
 */
export interface CollectionUpdateTable {
  collection: string;
  updated_at: number;
  version: Generated<number>;
}

/** A mirror's progress: `complete_through_day` is a day number (days since the epoch). */
export interface MirrorStateTable {
  upstream: string;
  collection: string;
  complete_through_day: number | null;
  /** A resume point as text, for collections not copied by day (notices: a JSON `NoticeCursor`). */
  cursor: string | null;
  checked_at: number | null;
}

/**
 * The main database's tables. `rate_buckets` and `key_usage` are in `CounterSchema`
 * (src/store/sqlite/counter-file.ts): reach them through `Database.counterDb()`.
 */
export interface Schema {
  complaints: ComplaintTable;
  complaint_counts: ComplaintCountTable;
  complaint_hour_counts: ComplaintHourCountTable;
  complaint_minute_counts: ComplaintMinuteCountTable;
  complaint_state_violations: ComplaintStateViolationTable;
  complaint_flag_violations: ComplaintFlagViolationTable;
  complaint_flag_violation_hours: ComplaintFlagViolationHourTable;
  complaint_combination_counts: ComplaintCombinationCountTable;
  complaint_area_combination_counts: ComplaintAreaCombinationCountTable;
  complaint_city_combination_counts: ComplaintCityCombinationCountTable;
  complaint_city_area_counts: ComplaintCityAreaCountTable;
  complaint_place_violations: ComplaintPlaceViolationTable;
  /**
   * The three `..._violation_blocks` tables: the columns of their day tables, their counts summed
   * over blocks of `VIOLATION_BLOCK_DAYS` violation days, each row's `violation_day` the first day
   * of its block (migration 033).
   */
  complaint_state_violation_blocks: ComplaintStateViolationTable;
  complaint_flag_violation_blocks: ComplaintFlagViolationTable;
  complaint_place_violation_blocks: ComplaintPlaceViolationTable;
  complaint_phone_totals: ComplaintPhoneTotalTable;
  api_keys: ApiKeyTable;
  settings: SettingTable;
  notices: NoticeTable;
  notice_values: NoticeValueTable;
  collection_updates: CollectionUpdateTable;
  mirror_state: MirrorStateTable;
}

/**
 * What is written on every counted request: rate-limit buckets and per-key hourly usage. On
 * PostgreSQL these tables are in the database; on SQLite they are in the counter file.
 */
export interface CounterSchema {
  rate_buckets: RateBucketTable;
  key_usage: KeyUsageTable;
}
