import { type Migration, type MigrationProvider, Migrator } from "kysely";
import type { Database } from "./database.js";
import { complaintsKeysSettings } from "./migrations/001-complaints-keys-settings.js";
import { notices } from "./migrations/002-notices.js";
import { mirrorState } from "./migrations/003-mirror-state.js";
import { rateHitFunction } from "./migrations/004-rate-hit-function.js";
import { hourCounts } from "./migrations/005-hour-counts.js";
import { noticeSearch } from "./migrations/006-notice-search.js";
import { rateLeaseFunction } from "./migrations/007-rate-lease-function.js";
import { collectionVersion } from "./migrations/008-collection-version.js";
import { dropUnused } from "./migrations/009-drop-unused.js";
import { dropNoticeVersion } from "./migrations/010-drop-notice-version.js";
import { violationDayIndex } from "./migrations/011-violation-day-index.js";
import { countGroups } from "./migrations/012-count-groups.js";
import { subjectIndex } from "./migrations/013-subject-index.js";
import { anyCity } from "./migrations/014-any-city.js";
import { violatedOn } from "./migrations/015-violated-on.js";
import { minuteCounts } from "./migrations/016-minute-counts.js";
import { stateViolatedOn } from "./migrations/017-state-violated-on.js";
import { combinationCounts } from "./migrations/018-combination-counts.js";
import { areaIndexColumns } from "./migrations/019-area-index-columns.js";
import { flagViolations } from "./migrations/020-flag-violations.js";
import { placeViolationDays } from "./migrations/021-place-violation-days.js";
import { areaViolations } from "./migrations/022-area-violations.js";
import { flagViolationHours } from "./migrations/023-flag-violation-hours.js";
import { stateRobocallViolations } from "./migrations/024-state-robocall-violations.js";
import { areaCombinationCounts } from "./migrations/025-area-combination-counts.js";
import { cityCombinationCounts } from "./migrations/026-city-combination-counts.js";
import { subjectIndexPlaces } from "./migrations/027-subject-index-places.js";
import { violationDayIndexPlaces } from "./migrations/028-violation-day-index-places.js";
import { cityAreaCounts } from "./migrations/029-city-area-counts.js";
import { subjectCombinationViolations } from "./migrations/030-subject-combination-violations.js";
import { placeViolations } from "./migrations/031-place-violations.js";
import { placeSubjectIndexes } from "./migrations/032-place-subject-indexes.js";
import { violationBlocks } from "./migrations/033-violation-blocks.js";
import type { DialectMigration } from "./migrations/migration.js";

/**
 * The schema's history, one frozen file each under migrations/. The names are recorded in
 * `kysely_migration` by every database migrated: never rename or remove one, only append. Each
 * migration may differ by dialect where the engines do (SQLite's WITHOUT ROWID tables, PostgreSQL's
 * identity columns and byte-order collation); the tables, columns and indexes are the same on both.
 */
const MIGRATIONS: ReadonlyArray<[name: string, migration: DialectMigration]> = [
  ["001-complaints-keys-settings", complaintsKeysSettings],
  ["002-notices", notices],
  ["003-mirror-state", mirrorState],
  ["004-rate-hit-function", rateHitFunction],
  ["005-hour-counts", hourCounts],
  ["006-notice-search", noticeSearch],
  ["007-rate-lease-function", rateLeaseFunction],
  ["008-collection-version", collectionVersion],
  ["009-drop-unused", dropUnused],
  ["010-drop-notice-version", dropNoticeVersion],
  ["011-violation-day-index", violationDayIndex],
  ["012-count-groups", countGroups],
  ["013-subject-index", subjectIndex],
  ["014-any-city", anyCity],
  ["015-violated-on", violatedOn],
  ["016-minute-counts", minuteCounts],
  ["017-state-violated-on", stateViolatedOn],
  ["018-combination-counts", combinationCounts],
  ["019-area-index-columns", areaIndexColumns],
  ["020-flag-violations", flagViolations],
  ["021-place-violation-days", placeViolationDays],
  ["022-area-violations", areaViolations],
  ["023-flag-violation-hours", flagViolationHours],
  ["024-state-robocall-violations", stateRobocallViolations],
  ["025-area-combination-counts", areaCombinationCounts],
  ["026-city-combination-counts", cityCombinationCounts],
  ["027-subject-index-places", subjectIndexPlaces],
  ["028-violation-day-index-places", violationDayIndexPlaces],
  ["029-city-area-counts", cityAreaCounts],
  ["030-subject-combination-violations", subjectCombinationViolations],
  ["031-place-violations", placeViolations],
  ["032-place-subject-indexes", placeSubjectIndexes],
  ["033-violation-blocks", violationBlocks],
];

/** The migrations for the database's dialect, by name. */
export function migrationsFor(dialect: Database["dialect"]): Record<string, Migration> {
  return Object.fromEntries(MIGRATIONS.map(([name, migration]) => [name, migration(dialect)]));
}

/** Brings the schema up to date; safe to run at every start and from several processes. */
export async function migrate(database: Database): Promise<void> {
  const provider: MigrationProvider = { getMigrations: async () => migrationsFor(database.dialect) };
  // Migrations are independent of one another, so one added on a branch that sorts before an
  // already applied one still runs.
  const migrator = new Migrator({ db: database.db, provider, allowUnorderedMigrations: true });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error;
  // The SQLite counter file: created and brought up to date on opening.
  if (database.dialect === "sqlite") database.counters();
}
