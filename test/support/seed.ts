/**
 * Data and keys written through the store and ingest modules, as the CLI writes them, for tests in
 * which the CLI is not what is tested: no process to start for each (`runCli` takes a second or
 * more per call, this a few milliseconds).
 */
import { createKey, KEY_PREFIX_LENGTH, type KeyOwner, loadKeySecret } from "../../src/access/api-keys.js";
import { type FileImportResult, importComplaintFile } from "../../src/ingest/complaint-importer.js";
import { importNoticeFile, type NoticeFileResult } from "../../src/ingest/notice-importer.js";
import { ComplaintStore } from "../../src/store/complaint-store.js";
import type { Database } from "../../src/store/database.js";
import { KeyStore } from "../../src/store/key-store.js";
import { migrate } from "../../src/store/migrate.js";
import { NoticeStore } from "../../src/store/notice-store.js";
import { openDatabase } from "../../src/store/open-database.js";
import { SettingsStore } from "../../src/store/settings-store.js";

/** Runs `work` on the database at `location` (a SQLite file or a postgres:// URL), migrated, and closes it. */
export async function withDatabase<T>(
  location: string,
  work: (database: Database) => Promise<T>,
): Promise<T> {
  const database = openDatabase(location);
  try {
    await migrate(database);
    return await work(database);
  } finally {
    await database.close();
  }
}

/**
 * Imports the files as `ftcapi import dnc` and `ftcapi import notices` do (each file one
 * transaction, then the store's optimize), and returns each file's result.
 */
export function importFiles(
  location: string,
  files: { complaints?: string[]; notices?: string[] },
): Promise<{ complaints: FileImportResult[]; notices: NoticeFileResult[] }> {
  return withDatabase(location, async (database) => {
    const complaints: FileImportResult[] = [];
    for (const file of files.complaints ?? []) complaints.push(await importComplaintFile(database, file));
    const notices: NoticeFileResult[] = [];
    for (const file of files.notices ?? []) notices.push(await importNoticeFile(database, file));
    if (complaints.some((result) => result.added > 0)) await new ComplaintStore(database).optimize();
    if (notices.some((result) => result.added + result.changed > 0))
      await new NoticeStore(database).optimize();
    return { complaints, notices };
  });
}

/**
 * Creates a key as `ftcapi keys create` does (hashed with the secret kept in the database, which a
 * server started without --key-secret uses too) and returns it. `disabled`: as `keys disable` leaves it.
 */
export function createTestKey(
  location: string,
  owner: Partial<KeyOwner> = {},
  options: { disabled?: boolean } = {},
): Promise<string> {
  return withDatabase(location, async (database) => {
    const secret = await loadKeySecret(new SettingsStore(database), undefined);
    const keys = new KeyStore(database);
    const { key } = await createKey(keys, secret, { email: "tester@example.com", ...owner });
    if (options.disabled) await keys.setStatus(key.slice(0, KEY_PREFIX_LENGTH), "disabled");
    return key;
  });
}

/** The requests counted against a key over the last `days` days, as `ftcapi keys usage` totals them. */
export function keyUsage(location: string, key: string, days = 7): Promise<number> {
  return withDatabase(location, async (database) => {
    const keys = new KeyStore(database);
    const [record] = await keys.findByPrefix(key.slice(0, KEY_PREFIX_LENGTH));
    if (!record) throw new Error(`no key starts with ${key.slice(0, KEY_PREFIX_LENGTH)}`);
    const thisHour = Math.floor(Date.now() / 3_600_000) * 3600;
    const hours = await keys.usage(record.id, thisHour - days * 86_400);
    return hours.reduce((total, hour) => total + Number(hour.count), 0);
  });
}
