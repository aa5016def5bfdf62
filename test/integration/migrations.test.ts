import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Migrator, sql } from "kysely";
import { writeComplaintCsv } from "../../src/ingest/complaint-generator.js";
import { writeNoticeCsv } from "../../src/ingest/notice-generator.js";
import { importNoticeFile } from "../../src/ingest/notice-importer.js";
import type { Database } from "../../src/store/database.js";
import { migrate, migrationsFor } from "../../src/store/migrate.js";
import { NoticeStore } from "../../src/store/notice-store.js";
import { openDatabase } from "../../src/store/open-database.js";
import { REPO_ROOT } from "../support/cli.js";
import { DIALECTS, type Dialect, freshDatabase } from "../support/dialects.js";
import { importFiles, withDatabase } from "../support/seed.js";
import { makeTempDirectory } from "../support/test-server.js";

/**
 * The schema the migrations make, written out. A database migrated by the version before the
 * migrations were split into files (001-007), then by this one, and a fresh database must both have
 * exactly this schema. A deliberate change to the schema is a new migration and a change here.
 */
const MIGRATION_NAMES = [
  "001-complaints-keys-settings",
  "002-notices",
  "003-mirror-state",
  "004-rate-hit-function",
  "005-hour-counts",
  "006-notice-search",
  "007-rate-lease-function",
  "008-collection-version",
  "009-drop-unused",
  "010-drop-notice-version",
  "011-violation-day-index",
  "012-count-groups",
  "013-subject-index",
  "014-any-city",
  "015-violated-on",
  "016-minute-counts",
  "017-state-violated-on",
  "018-combination-counts",
  "019-area-index-columns",
  "020-flag-violations",
  "021-place-violation-days",
  "022-area-violations",
  "023-flag-violation-hours",
  "024-state-robocall-violations",
  "025-area-combination-counts",
  "026-city-combination-counts",
  "027-subject-index-places",
  "028-violation-day-index-places",
  "029-city-area-counts",
  "030-subject-combination-violations",
  "031-place-violations",
  "032-place-subject-indexes",
  "033-violation-blocks",
];

/** `sqlite_master` as SQLite keeps it (the statements' text as Kysely compiled them, stray spaces included). */
const SQLITE_SCHEMA = [
  `index api_keys_prefix on api_keys: CREATE INDEX "api_keys_prefix" on "api_keys" ("prefix")`,
  `index complaint_counts_by_day on complaint_counts: CREATE INDEX "complaint_counts_by_day" on "complaint_counts" ("dimension", "day", "value", "count")`,
  `index complaint_hour_counts_by_hour on complaint_hour_counts: CREATE INDEX "complaint_hour_counts_by_hour" on "complaint_hour_counts" ("dimension", "hour", "value", "count")`,
  `index complaint_phone_totals_by_count on complaint_phone_totals: CREATE INDEX "complaint_phone_totals_by_count" on "complaint_phone_totals" ("count", "newest_at", "phone")`,
  `index complaints_any_city on complaints: CREATE INDEX "complaints_any_city" on "complaints" ("city_key", "created_at", "id", "area_code", "robocall", "violation_day")`,
  `index complaints_area on complaints: CREATE INDEX "complaints_area" on "complaints" ("area_code", "created_at", "id", "state_key", "robocall", "violation_day")`,
  `index complaints_area_subject_violation on complaints: CREATE INDEX "complaints_area_subject_violation" on "complaints" ("area_code", "subject", "violation_day", "created_at", "id", "state_key", "robocall")`,
  `index complaints_city on complaints: CREATE INDEX "complaints_city" on "complaints" ("state_key", "city_key", "created_at", "id", "area_code", "robocall", "violation_day")`,
  `index complaints_city_subject_violation on complaints: CREATE INDEX "complaints_city_subject_violation" on "complaints" ("city_key", "subject", "violation_day", "created_at", "id", "state_key", "area_code", "robocall")`,
  `index complaints_id on complaints: CREATE UNIQUE INDEX "complaints_id" on "complaints" ("id")`,
  `index complaints_phone on complaints: CREATE INDEX "complaints_phone" on "complaints" ("phone", "created_at", "id")`,
  `index complaints_robocall on complaints: CREATE INDEX "complaints_robocall" on "complaints" ("robocall", "created_at", "id", "violation_day")`,
  `index complaints_state on complaints: CREATE INDEX "complaints_state" on "complaints" ("state_key", "created_at", "id", "violation_day", "robocall")`,
  `index complaints_subject on complaints: CREATE INDEX "complaints_subject" on "complaints" ("subject", "created_at", "id", "violation_day", "state_key", "city_key", "area_code", "robocall")`,
  `index complaints_violation on complaints: CREATE INDEX "complaints_violation" on "complaints" ("violation_at")`,
  `index complaints_violation_day on complaints: CREATE INDEX "complaints_violation_day" on "complaints" ("violation_day", "created_at", "id", "state_key", "robocall", "area_code")`,
  `index notice_values_field_value on notice_values: CREATE INDEX "notice_values_field_value" on "notice_values" ("field", "value")`,
  `index notices_acquired_party_order on notices: CREATE INDEX "notices_acquired_party_order" on "notices" ((acquired_party is null), lower(acquired_party), id)`,
  `index notices_acquiring_party_order on notices: CREATE INDEX "notices_acquiring_party_order" on "notices" ((acquiring_party is null), lower(acquiring_party), id)`,
  `index notices_created on notices: CREATE INDEX "notices_created" on "notices" ("created_at", "id")`,
  `index notices_date on notices: CREATE INDEX "notices_date" on "notices" ("date", "id")`,
  `index notices_date_order on notices: CREATE INDEX "notices_date_order" on "notices" ((date is null), date, id)`,
  `index notices_title on notices: CREATE INDEX "notices_title" on "notices" (lower(title), id)`,
  `index notices_transaction_number on notices: CREATE INDEX "notices_transaction_number" on "notices" (lower(transaction_number))`,
  `index notices_transaction_number_order on notices: CREATE INDEX "notices_transaction_number_order" on "notices" (lower(transaction_number), id)`,
  `index notices_updated on notices: CREATE INDEX "notices_updated" on "notices" ("updated_at", "id")`,
  `table api_keys on api_keys: CREATE TABLE "api_keys" ("id" integer primary key autoincrement, "prefix" text not null, "hash" text not null unique, "email" text not null, "first_name" text default '' not null, "last_name" text default '' not null, "use_text" text default '' not null, "status" text default 'active' not null, "limit_per_hour" integer, "unlimited" integer default 0 not null, "created_at" integer not null)`,
  `table collection_updates on collection_updates: CREATE TABLE "collection_updates" ("collection" text primary key, "updated_at" integer not null, "version" integer default 0 not null)`,
  `table complaint_area_combination_counts on complaint_area_combination_counts: CREATE TABLE "complaint_area_combination_counts" ("area_code" text not null, "state_key" text not null, "robocall" text not null, "subject" text not null, "created_day" integer not null, "count" integer not null, constraint "complaint_area_combination_counts_pk" primary key ("area_code", "state_key", "robocall", "subject", "created_day")) without rowid`,
  `table complaint_city_area_counts on complaint_city_area_counts: CREATE TABLE "complaint_city_area_counts" ("city_key" text not null, "area_code" text not null, "state_key" text not null, "robocall" text not null, "subject" text not null, "created_day" integer not null, "count" integer not null, constraint "complaint_city_area_counts_pk" primary key ("city_key", "area_code", "state_key", "robocall", "subject", "created_day")) without rowid`,
  `table complaint_city_combination_counts on complaint_city_combination_counts: CREATE TABLE "complaint_city_combination_counts" ("city_key" text not null, "state_key" text not null, "robocall" text not null, "subject" text not null, "created_day" integer not null, "count" integer not null, constraint "complaint_city_combination_counts_pk" primary key ("city_key", "state_key", "robocall", "subject", "created_day")) without rowid`,
  `table complaint_combination_counts on complaint_combination_counts: CREATE TABLE "complaint_combination_counts" ("state_key" text not null, "robocall" text not null, "subject" text not null, "created_day" integer not null, "count" integer not null, constraint "complaint_combination_counts_pk" primary key ("state_key", "robocall", "subject", "created_day")) without rowid`,
  `table complaint_counts on complaint_counts: CREATE TABLE "complaint_counts" ("dimension" text not null, "value" text not null, "day" integer not null, "count" integer not null, constraint "complaint_counts_pk" primary key ("dimension", "value", "day")) without rowid`,
  `table complaint_flag_violation_blocks on complaint_flag_violation_blocks: CREATE TABLE "complaint_flag_violation_blocks" ("dimension" text not null, "value" text not null, "created_day" integer not null, "violation_day" integer not null, "count" integer not null, constraint "complaint_flag_violation_blocks_pk" primary key ("dimension", "value", "created_day", "violation_day")) without rowid`,
  `table complaint_flag_violation_hours on complaint_flag_violation_hours: CREATE TABLE "complaint_flag_violation_hours" ("dimension" text not null, "value" text not null, "created_hour" integer not null, "violation_day" integer not null, "count" integer not null, constraint "complaint_flag_violation_hours_pk" primary key ("dimension", "value", "created_hour", "violation_day")) without rowid`,
  `table complaint_flag_violations on complaint_flag_violations: CREATE TABLE "complaint_flag_violations" ("dimension" text not null, "value" text not null, "created_day" integer not null, "violation_day" integer not null, "count" integer not null, constraint "complaint_flag_violations_pk" primary key ("dimension", "value", "created_day", "violation_day")) without rowid`,
  `table complaint_hour_counts on complaint_hour_counts: CREATE TABLE "complaint_hour_counts" ("dimension" text not null, "value" text not null, "hour" integer not null, "count" integer not null, constraint "complaint_hour_counts_pk" primary key ("dimension", "value", "hour")) without rowid`,
  `table complaint_minute_counts on complaint_minute_counts: CREATE TABLE "complaint_minute_counts" ("minute" integer primary key, "count" integer not null)`,
  `table complaint_phone_totals on complaint_phone_totals: CREATE TABLE "complaint_phone_totals" ("phone" text not null primary key, "count" integer not null, "newest_at" integer not null) without rowid`,
  `table complaint_place_violation_blocks on complaint_place_violation_blocks: CREATE TABLE "complaint_place_violation_blocks" ("place" text not null, "value" text not null, "created_day" integer not null, "violation_day" integer not null, "state_key" text not null, "robocall" text not null, "count" integer not null, constraint "complaint_place_violation_blocks_pk" primary key ("place", "value", "created_day", "violation_day", "state_key", "robocall")) without rowid`,
  `table complaint_place_violations on complaint_place_violations: CREATE TABLE "complaint_place_violations" ("place" text not null, "value" text not null, "created_day" integer not null, "violation_day" integer not null, "state_key" text not null, "robocall" text not null, "count" integer not null, constraint "complaint_place_violations_pk" primary key ("place", "value", "created_day", "violation_day", "state_key", "robocall")) without rowid`,
  `table complaint_state_violation_blocks on complaint_state_violation_blocks: CREATE TABLE "complaint_state_violation_blocks" ("state_key" text not null, "created_day" integer not null, "violation_day" integer not null, "count" integer not null, constraint "complaint_state_violation_blocks_pk" primary key ("state_key", "created_day", "violation_day")) without rowid`,
  `table complaint_state_violations on complaint_state_violations: CREATE TABLE "complaint_state_violations" ("state_key" text not null, "created_day" integer not null, "violation_day" integer not null, "count" integer not null, constraint "complaint_state_violations_pk" primary key ("state_key", "created_day", "violation_day")) without rowid`,
  `table complaints on complaints: CREATE TABLE "complaints" ("created_at" integer not null, "id" text not null , "violation_at" integer not null, "phone" text not null, "city" text not null, "state" text not null, "area_code" text not null, "subject" text not null, "robocall" text not null, "state_key" text not null, "city_key" text not null, violation_day integer not null default 0, constraint "complaints_pk" primary key ("created_at", "id")) without rowid`,
  `table mirror_state on mirror_state: CREATE TABLE "mirror_state" ("upstream" text not null, "collection" text not null, "complete_through_day" integer, "cursor" text, "checked_at" integer, constraint "mirror_state_pk" primary key ("upstream", "collection"))`,
  `table notice_values on notice_values: CREATE TABLE "notice_values" ("notice_id" text not null , "field" text not null, "position" integer not null, "value" text not null , constraint "notice_values_pk" primary key ("notice_id", "field", "position")) without rowid`,
  `table notices on notices: CREATE TABLE "notices" ("id" text primary key , "revision" integer not null, "title" text not null , "transaction_number" text not null , "acquiring_party" text , "acquired_party" text , "date" text , "created_at" integer not null, "updated_at" integer not null, "content_digest" text not null)`,
  `table settings on settings: CREATE TABLE "settings" ("name" text primary key, "value" text not null)`,
];

/**
 * PostgreSQL's catalogs: columns per table in order, constraints, indexes, functions (their body as
 * an md5 of its text), triggers, sequences and extensions. Lines about pg_trgm are expected only
 * where the server offers the extension (migration 006 leaves the trigram indexes out otherwise).
 */
const POSTGRES_SCHEMA = [
  `table api_keys (id integer not null default nextval('api_keys_id_seq'::regclass), prefix text not null, hash text not null, email text not null, first_name text not null default ''::text, last_name text not null default ''::text, use_text text not null default ''::text, status text not null default 'active'::text, limit_per_hour integer null, unlimited integer not null default 0, created_at bigint not null)`,
  `table collection_updates (collection text not null, updated_at bigint not null, version integer not null default 0)`,
  `table complaint_area_combination_counts (area_code text not null, state_key text not null, robocall text not null, subject text not null, created_day integer not null, count integer not null)`,
  `table complaint_city_area_counts (city_key text not null, area_code text not null, state_key text not null, robocall text not null, subject text not null, created_day integer not null, count integer not null)`,
  `table complaint_city_combination_counts (city_key text not null, state_key text not null, robocall text not null, subject text not null, created_day integer not null, count integer not null)`,
  `table complaint_combination_counts (state_key text not null, robocall text not null, subject text not null, created_day integer not null, count integer not null)`,
  `table complaint_counts (dimension text not null, value text not null, day integer not null, count integer not null)`,
  `table complaint_flag_violation_blocks (dimension text not null, value text not null, created_day integer not null, violation_day integer not null, count integer not null)`,
  `table complaint_flag_violation_hours (dimension text not null, value text not null, created_hour integer not null, violation_day integer not null, count integer not null)`,
  `table complaint_flag_violations (dimension text not null, value text not null, created_day integer not null, violation_day integer not null, count integer not null)`,
  `table complaint_hour_counts (dimension text not null, value text not null, hour integer not null, count integer not null)`,
  `table complaint_minute_counts (minute integer not null, count integer not null)`,
  `table complaint_phone_totals (phone text not null, count integer not null, newest_at bigint not null)`,
  `table complaint_place_violation_blocks (place text not null, value text not null, created_day integer not null, violation_day integer not null, state_key text not null, robocall text not null, count integer not null)`,
  `table complaint_place_violations (place text not null, value text not null, created_day integer not null, violation_day integer not null, state_key text not null, robocall text not null, count integer not null)`,
  `table complaint_state_violation_blocks (state_key text not null, created_day integer not null, violation_day integer not null, count integer not null)`,
  `table complaint_state_violations (state_key text not null, created_day integer not null, violation_day integer not null, count integer not null)`,
  `table complaints (created_at bigint not null, id text not null collate C, violation_at bigint not null, phone text not null, city text not null, state text not null, area_code text not null, subject text not null, robocall text not null, state_key text not null, city_key text not null, violation_day integer not null)`,
  `table key_usage (key_id integer not null, hour bigint not null, count integer not null)`,
  `table mirror_state (upstream text not null, collection text not null, complete_through_day integer null, cursor text null, checked_at bigint null)`,
  `table notice_values (notice_id text not null collate C, field text not null, position integer not null, value text not null collate C)`,
  `table notices (id text not null collate C, revision integer not null, title text not null collate C, transaction_number text not null collate C, acquiring_party text null collate C, acquired_party text null collate C, date text null collate C, created_at bigint not null, updated_at bigint not null, content_digest text not null)`,
  `table rate_buckets (subject text not null, bucket bigint not null, count integer not null)`,
  `table settings (name text not null, value text not null)`,
  `constraint api_keys.api_keys_hash_key: UNIQUE (hash)`,
  `constraint api_keys.api_keys_pkey: PRIMARY KEY (id)`,
  `constraint collection_updates.collection_updates_pkey: PRIMARY KEY (collection)`,
  `constraint complaint_area_combination_counts.complaint_area_combination_counts_pk: PRIMARY KEY (area_code, state_key, robocall, subject, created_day)`,
  `constraint complaint_city_area_counts.complaint_city_area_counts_pk: PRIMARY KEY (city_key, area_code, state_key, robocall, subject, created_day)`,
  `constraint complaint_city_combination_counts.complaint_city_combination_counts_pk: PRIMARY KEY (city_key, state_key, robocall, subject, created_day)`,
  `constraint complaint_combination_counts.complaint_combination_counts_pk: PRIMARY KEY (state_key, robocall, subject, created_day)`,
  `constraint complaint_counts.complaint_counts_pk: PRIMARY KEY (dimension, value, day)`,
  `constraint complaint_flag_violation_blocks.complaint_flag_violation_blocks_pk: PRIMARY KEY (dimension, value, created_day, violation_day)`,
  `constraint complaint_flag_violation_hours.complaint_flag_violation_hours_pk: PRIMARY KEY (dimension, value, created_hour, violation_day)`,
  `constraint complaint_flag_violations.complaint_flag_violations_pk: PRIMARY KEY (dimension, value, created_day, violation_day)`,
  `constraint complaint_hour_counts.complaint_hour_counts_pk: PRIMARY KEY (dimension, value, hour)`,
  `constraint complaint_minute_counts.complaint_minute_counts_pkey: PRIMARY KEY (minute)`,
  `constraint complaint_phone_totals.complaint_phone_totals_pkey: PRIMARY KEY (phone)`,
  `constraint complaint_place_violation_blocks.complaint_place_violation_blocks_pk: PRIMARY KEY (place, value, created_day, violation_day, state_key, robocall)`,
  `constraint complaint_place_violations.complaint_place_violations_pk: PRIMARY KEY (place, value, created_day, violation_day, state_key, robocall)`,
  `constraint complaint_state_violation_blocks.complaint_state_violation_blocks_pk: PRIMARY KEY (state_key, created_day, violation_day)`,
  `constraint complaint_state_violations.complaint_state_violations_pk: PRIMARY KEY (state_key, created_day, violation_day)`,
  `constraint complaints.complaints_pk: PRIMARY KEY (created_at, id)`,
  `constraint key_usage.key_usage_pk: PRIMARY KEY (key_id, hour)`,
  `constraint mirror_state.mirror_state_pk: PRIMARY KEY (upstream, collection)`,
  `constraint notice_values.notice_values_pk: PRIMARY KEY (notice_id, field, "position")`,
  `constraint notices.notices_pkey: PRIMARY KEY (id)`,
  `constraint rate_buckets.rate_buckets_pk: PRIMARY KEY (subject, bucket)`,
  `constraint settings.settings_pkey: PRIMARY KEY (name)`,
  `index api_keys_hash_key: CREATE UNIQUE INDEX api_keys_hash_key ON public.api_keys USING btree (hash)`,
  `index api_keys_pkey: CREATE UNIQUE INDEX api_keys_pkey ON public.api_keys USING btree (id)`,
  `index api_keys_prefix: CREATE INDEX api_keys_prefix ON public.api_keys USING btree (prefix)`,
  `index collection_updates_pkey: CREATE UNIQUE INDEX collection_updates_pkey ON public.collection_updates USING btree (collection)`,
  `index complaint_area_combination_counts_pk: CREATE UNIQUE INDEX complaint_area_combination_counts_pk ON public.complaint_area_combination_counts USING btree (area_code, state_key, robocall, subject, created_day)`,
  `index complaint_city_area_counts_pk: CREATE UNIQUE INDEX complaint_city_area_counts_pk ON public.complaint_city_area_counts USING btree (city_key, area_code, state_key, robocall, subject, created_day)`,
  `index complaint_city_combination_counts_pk: CREATE UNIQUE INDEX complaint_city_combination_counts_pk ON public.complaint_city_combination_counts USING btree (city_key, state_key, robocall, subject, created_day)`,
  `index complaint_combination_counts_pk: CREATE UNIQUE INDEX complaint_combination_counts_pk ON public.complaint_combination_counts USING btree (state_key, robocall, subject, created_day)`,
  `index complaint_counts_by_day: CREATE INDEX complaint_counts_by_day ON public.complaint_counts USING btree (dimension, day, value, count)`,
  `index complaint_counts_pk: CREATE UNIQUE INDEX complaint_counts_pk ON public.complaint_counts USING btree (dimension, value, day)`,
  `index complaint_flag_violation_blocks_pk: CREATE UNIQUE INDEX complaint_flag_violation_blocks_pk ON public.complaint_flag_violation_blocks USING btree (dimension, value, created_day, violation_day)`,
  `index complaint_flag_violation_hours_pk: CREATE UNIQUE INDEX complaint_flag_violation_hours_pk ON public.complaint_flag_violation_hours USING btree (dimension, value, created_hour, violation_day)`,
  `index complaint_flag_violations_pk: CREATE UNIQUE INDEX complaint_flag_violations_pk ON public.complaint_flag_violations USING btree (dimension, value, created_day, violation_day)`,
  `index complaint_hour_counts_by_hour: CREATE INDEX complaint_hour_counts_by_hour ON public.complaint_hour_counts USING btree (dimension, hour, value, count)`,
  `index complaint_hour_counts_pk: CREATE UNIQUE INDEX complaint_hour_counts_pk ON public.complaint_hour_counts USING btree (dimension, value, hour)`,
  `index complaint_minute_counts_pkey: CREATE UNIQUE INDEX complaint_minute_counts_pkey ON public.complaint_minute_counts USING btree (minute)`,
  `index complaint_phone_totals_by_count: CREATE INDEX complaint_phone_totals_by_count ON public.complaint_phone_totals USING btree (count, newest_at, phone)`,
  `index complaint_phone_totals_pkey: CREATE UNIQUE INDEX complaint_phone_totals_pkey ON public.complaint_phone_totals USING btree (phone)`,
  `index complaint_place_violation_blocks_pk: CREATE UNIQUE INDEX complaint_place_violation_blocks_pk ON public.complaint_place_violation_blocks USING btree (place, value, created_day, violation_day, state_key, robocall)`,
  `index complaint_place_violations_pk: CREATE UNIQUE INDEX complaint_place_violations_pk ON public.complaint_place_violations USING btree (place, value, created_day, violation_day, state_key, robocall)`,
  `index complaint_state_violation_blocks_pk: CREATE UNIQUE INDEX complaint_state_violation_blocks_pk ON public.complaint_state_violation_blocks USING btree (state_key, created_day, violation_day)`,
  `index complaint_state_violations_pk: CREATE UNIQUE INDEX complaint_state_violations_pk ON public.complaint_state_violations USING btree (state_key, created_day, violation_day)`,
  `index complaints_any_city: CREATE INDEX complaints_any_city ON public.complaints USING btree (city_key, created_at, id, area_code, robocall, violation_day)`,
  `index complaints_area: CREATE INDEX complaints_area ON public.complaints USING btree (area_code, created_at, id, state_key, robocall, violation_day)`,
  `index complaints_area_subject_violation: CREATE INDEX complaints_area_subject_violation ON public.complaints USING btree (area_code, subject, violation_day, created_at, id, state_key, robocall)`,
  `index complaints_city: CREATE INDEX complaints_city ON public.complaints USING btree (state_key, city_key, created_at, id, area_code, robocall, violation_day)`,
  `index complaints_city_subject_violation: CREATE INDEX complaints_city_subject_violation ON public.complaints USING btree (city_key, subject, violation_day, created_at, id, state_key, area_code, robocall)`,
  `index complaints_id: CREATE UNIQUE INDEX complaints_id ON public.complaints USING btree (id)`,
  `index complaints_phone: CREATE INDEX complaints_phone ON public.complaints USING btree (phone, created_at, id)`,
  `index complaints_pk: CREATE UNIQUE INDEX complaints_pk ON public.complaints USING btree (created_at, id)`,
  `index complaints_robocall: CREATE INDEX complaints_robocall ON public.complaints USING btree (robocall, created_at, id, violation_day)`,
  `index complaints_state: CREATE INDEX complaints_state ON public.complaints USING btree (state_key, created_at, id, violation_day, robocall)`,
  `index complaints_subject: CREATE INDEX complaints_subject ON public.complaints USING btree (subject, created_at, id, violation_day, state_key, city_key, area_code, robocall)`,
  `index complaints_violation: CREATE INDEX complaints_violation ON public.complaints USING btree (violation_at)`,
  `index complaints_violation_day: CREATE INDEX complaints_violation_day ON public.complaints USING btree (violation_day, created_at, id, state_key, robocall, area_code)`,
  `index key_usage_pk: CREATE UNIQUE INDEX key_usage_pk ON public.key_usage USING btree (key_id, hour)`,
  `index mirror_state_pk: CREATE UNIQUE INDEX mirror_state_pk ON public.mirror_state USING btree (upstream, collection)`,
  `index notice_values_field_value: CREATE INDEX notice_values_field_value ON public.notice_values USING btree (field, value)`,
  `index notice_values_pk: CREATE UNIQUE INDEX notice_values_pk ON public.notice_values USING btree (notice_id, field, "position")`,
  `index notice_values_value_trigrams: CREATE INDEX notice_values_value_trigrams ON public.notice_values USING gin (lower(value) gin_trgm_ops)`,
  `index notices_acquired_party_order: CREATE INDEX notices_acquired_party_order ON public.notices USING btree (((acquired_party IS NULL)), lower(acquired_party), id)`,
  `index notices_acquired_party_trigrams: CREATE INDEX notices_acquired_party_trigrams ON public.notices USING gin (lower(acquired_party) gin_trgm_ops)`,
  `index notices_acquiring_party_order: CREATE INDEX notices_acquiring_party_order ON public.notices USING btree (((acquiring_party IS NULL)), lower(acquiring_party), id)`,
  `index notices_acquiring_party_trigrams: CREATE INDEX notices_acquiring_party_trigrams ON public.notices USING gin (lower(acquiring_party) gin_trgm_ops)`,
  `index notices_created: CREATE INDEX notices_created ON public.notices USING btree (created_at, id)`,
  `index notices_date: CREATE INDEX notices_date ON public.notices USING btree (date, id)`,
  `index notices_date_order: CREATE INDEX notices_date_order ON public.notices USING btree (((date IS NULL)), date, id)`,
  `index notices_pkey: CREATE UNIQUE INDEX notices_pkey ON public.notices USING btree (id)`,
  `index notices_title: CREATE INDEX notices_title ON public.notices USING btree (lower(title), id)`,
  `index notices_title_trigrams: CREATE INDEX notices_title_trigrams ON public.notices USING gin (lower(title) gin_trgm_ops)`,
  `index notices_transaction_number: CREATE INDEX notices_transaction_number ON public.notices USING btree (lower(transaction_number))`,
  `index notices_transaction_number_order: CREATE INDEX notices_transaction_number_order ON public.notices USING btree (lower(transaction_number), id)`,
  `index notices_transaction_number_trigrams: CREATE INDEX notices_transaction_number_trigrams ON public.notices USING gin (lower(transaction_number) gin_trgm_ops)`,
  `index notices_updated: CREATE INDEX notices_updated ON public.notices USING btree (updated_at, id)`,
  `index rate_buckets_pk: CREATE UNIQUE INDEX rate_buckets_pk ON public.rate_buckets USING btree (subject, bucket)`,
  `index settings_pkey: CREATE UNIQUE INDEX settings_pkey ON public.settings USING btree (name)`,
  `function ftcapi_rate_lease(subjects text[], limits bigint[], window_seconds bigint[], buckets bigint[], max_hits bigint, room_share double precision, returned_subjects text[], returned_buckets bigint[], returned_hits bigint[]) body md5 1e03939feb9e107f7f08dbe4afc89edd`,
  `sequence api_keys_id_seq`,
  `extension pg_trgm`,
  `extension plpgsql`,
];

/** The schema of the database as lines comparable with the lists above (Kysely's own tables left out). */
async function schemaOf(database: Database): Promise<string[]> {
  const lines: string[] = [];
  if (database.dialect === "sqlite") {
    const rows = database.sqlite
      .prepare(
        `select type, name, tbl_name, sql from sqlite_master
          where name not like 'sqlite_%' and tbl_name not like 'kysely_%' order by type, name`,
      )
      .all() as Array<{ type: string; name: string; tbl_name: string; sql: string }>;
    for (const row of rows) lines.push(`${row.type} ${row.name} on ${row.tbl_name}: ${row.sql}`);
    return lines;
  }
  const query = async (text: string) =>
    (await sql.raw(text).execute(database.db)).rows as Array<Record<string, string | null>>;
  const columns = new Map<string, string[]>();
  for (const row of await query(`select table_name, column_name, data_type, is_nullable, column_default, collation_name
      from information_schema.columns where table_schema = 'public' and table_name not like 'kysely_%'
      order by table_name, ordinal_position`)) {
    const definition = [
      row.column_name,
      row.data_type,
      row.is_nullable === "NO" ? "not null" : "null",
      ...(row.column_default === null ? [] : [`default ${row.column_default}`]),
      ...(row.collation_name === null ? [] : [`collate ${row.collation_name}`]),
    ].join(" ");
    columns.set(row.table_name!, [...(columns.get(row.table_name!) ?? []), definition]);
  }
  for (const [table, definitions] of columns) lines.push(`table ${table} (${definitions.join(", ")})`);
  for (const row of await query(`select conrelid::regclass::text as "table", conname, pg_get_constraintdef(oid) as definition
      from pg_constraint where connamespace = 'public'::regnamespace and conrelid::regclass::text not like 'kysely_%'
      order by 1, 2`))
    lines.push(`constraint ${row.table}.${row.conname}: ${row.definition}`);
  for (const row of await query(`select indexname, indexdef from pg_indexes
      where schemaname = 'public' and tablename not like 'kysely_%' order by 1`))
    lines.push(`index ${row.indexname}: ${row.indexdef}`);
  // Functions of extensions (pg_trgm's, in the public schema) are the extension's, not ours.
  for (const row of await query(`select p.proname, pg_get_function_identity_arguments(p.oid) as arguments, md5(p.prosrc) as body
      from pg_proc p where p.pronamespace = 'public'::regnamespace
        and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')
      order by 1, 2`))
    lines.push(`function ${row.proname}(${row.arguments}) body md5 ${row.body}`);
  for (const row of await query(
    "select tgname, pg_get_triggerdef(oid) as definition from pg_trigger where not tgisinternal order by 1",
  ))
    lines.push(`trigger ${row.tgname}: ${row.definition}`);
  for (const row of await query(
    "select sequence_name from information_schema.sequences where sequence_schema = 'public' order by 1",
  ))
    lines.push(`sequence ${row.sequence_name}`);
  for (const row of await query("select extname from pg_extension order by 1"))
    lines.push(`extension ${row.extname}`);
  return lines;
}

async function expectedSchema(database: Database): Promise<string[]> {
  if (database.dialect === "sqlite") return SQLITE_SCHEMA;
  const { rows } = await sql<{ offered: boolean }>`
    select exists (select 1 from pg_available_extensions where name = 'pg_trgm') as offered`.execute(
    database.db,
  );
  return rows[0]?.offered ? POSTGRES_SCHEMA : POSTGRES_SCHEMA.filter((line) => !/trgm|trigram/.test(line));
}

async function recordedMigrations(db: Database["db"]): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
  return rows.map((row) => row.name);
}

/**
 * Brings a fresh database to the state the version before this one left it in: migrations 001-007
 * as recorded, with what they made then and make no longer (`api_keys.last_used_at`, and on
 * PostgreSQL `ftcapi_rate_hit`), and on SQLite the counter tables versions before the counter file
 * kept in the database file.
 */
async function migrateAsPreviousVersion(database: Database, dialect: Dialect): Promise<void> {
  const migrator = new Migrator({
    db: database.db,
    provider: { getMigrations: async () => migrationsFor(dialect) },
  });
  const { error } = await migrator.migrateTo("007-rate-lease-function");
  if (error) throw error;
  const db = database.db;
  if (dialect === "sqlite") {
    await sql`alter table api_keys add column last_used_at integer`.execute(db);
    await sql`create table rate_buckets (subject text not null, bucket integer not null, count integer not null,
      constraint rate_buckets_pk primary key (subject, bucket)) without rowid`.execute(db);
    await sql`create table key_usage (key_id integer not null, hour integer not null, count integer not null,
      constraint key_usage_pk primary key (key_id, hour)) without rowid`.execute(db);
  } else {
    await sql`alter table api_keys add column last_used_at bigint`.execute(db);
    // Its body does not matter: migration 009 drops the function by its signature.
    await sql`create function ftcapi_rate_hit(
        subjects text[], limits bigint[], window_seconds bigint[], buckets bigint[],
        usage_key_id integer, usage_hour bigint
      ) returns table (allowed boolean, used bigint[], oldest bigint[])
      language sql as $$ select true, '{}'::bigint[], '{}'::bigint[] $$`.execute(db);
  }
  await sql`insert into api_keys (prefix, hash, email, created_at, last_used_at)
    values ('abcdef', 'hash-1', 'ops@example.gov', 1700000000, 1700003600)`.execute(db);
  await sql`insert into collection_updates (collection, updated_at) values ('dnc-complaints', 1700000000)`.execute(
    db,
  );
}

for (const dialect of DIALECTS) {
  describe(`migrations (${dialect})`, () => {
    let fresh: Database;
    let upgraded: Database;
    before(async () => {
      fresh = openDatabase(await freshDatabase(dialect));
      upgraded = openDatabase(await freshDatabase(dialect));
    });
    after(async () => {
      await fresh?.close();
      await upgraded?.close();
    });

    it("make the schema written out above on a fresh database", async () => {
      await migrate(fresh);
      assert.deepEqual(await recordedMigrations(fresh.db), MIGRATION_NAMES);
      assert.deepEqual(await schemaOf(fresh), await expectedSchema(fresh));
    });

    it("bring a database of the previous version to the same schema, keeping its rows", async () => {
      await migrateAsPreviousVersion(upgraded, dialect);
      assert.notDeepEqual(await schemaOf(upgraded), await expectedSchema(upgraded));
      await migrate(upgraded);
      assert.deepEqual(await recordedMigrations(upgraded.db), MIGRATION_NAMES);
      assert.deepEqual(await schemaOf(upgraded), await expectedSchema(upgraded));
      const key = await upgraded.db
        .selectFrom("api_keys")
        .select(["prefix", "hash", "email", "status", "created_at"])
        .executeTakeFirst();
      assert.deepEqual(key, {
        prefix: "abcdef",
        hash: "hash-1",
        email: "ops@example.gov",
        status: "active",
        created_at: 1700000000,
      });
      const update = await upgraded.db.selectFrom("collection_updates").selectAll().executeTakeFirst();
      assert.deepEqual(update, { collection: "dnc-complaints", updated_at: 1700000000, version: 0 });
    });

    it("run again, change nothing", async () => {
      await migrate(fresh);
      assert.deepEqual(await recordedMigrations(fresh.db), MIGRATION_NAMES);
      assert.deepEqual(await schemaOf(fresh), await expectedSchema(fresh));
    });

    it("are what a first import leaves, which drops the indexes and builds them at its end, and what a failed one leaves", async () => {
      const directory = await makeTempDirectory();
      const notices = join(directory, "notices.csv");
      const complaints = join(directory, "complaints.csv");
      await writeNoticeCsv({ rows: 1_200, seed: 4 }, notices);
      await writeComplaintCsv({ rows: 1_200, days: 3, seed: 4, endSeconds: 1_700_006_400 }, complaints);
      const broken = join(directory, "broken.csv");
      const lines = (await readFile(notices, "utf8")).split("\n");
      await writeFile(broken, [...lines.slice(0, 900), "not,a,notice", ...lines.slice(900)].join("\n"));

      const failed = await freshDatabase(dialect);
      await withDatabase(failed, async (database) => {
        await assert.rejects(importNoticeFile(database, broken, { strict: true }));
        assert.equal(await new NoticeStore(database).recordCount(), 0);
        assert.deepEqual(await schemaOf(database), await expectedSchema(database));
      });
      const loaded = await freshDatabase(dialect);
      const results = await importFiles(loaded, { notices: [notices], complaints: [complaints] });
      assert.equal(results.notices[0]!.added, 1_200);
      assert.equal(results.complaints[0]!.added, 1_200);
      await withDatabase(loaded, async (database) => {
        assert.deepEqual(await schemaOf(database), await expectedSchema(database));
      });
    });
  });
}

describe("migration files", () => {
  it("import nothing but Kysely and their shared type, so what they create never changes", () => {
    const directory = join(REPO_ROOT, "src/store/migrations");
    const files = readdirSync(directory).filter((file) => file.endsWith(".ts"));
    assert.ok(files.length >= MIGRATION_NAMES.length);
    for (const name of MIGRATION_NAMES) assert.ok(files.includes(`${name}.ts`), `${name}.ts exists`);
    for (const file of files) {
      const text = readFileSync(join(directory, file), "utf8");
      const imported = [...text.matchAll(/\bfrom\s+"([^"]+)"/g)].map((match) => match[1]);
      for (const specifier of imported)
        assert.ok(specifier === "kysely" || specifier === "./migration.js", `${file} imports ${specifier}`);
    }
  });
});
