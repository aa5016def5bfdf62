import { closeSync, openSync } from "node:fs";

/** Read and write for the owner only: a SQLite file holds the key-hashing secret. */
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Creates `file` empty with mode 0600 (narrowed further by the umask, never widened), so that
 * SQLite, which makes a new database 0644 and gives its `-wal` and `-shm` files the database's
 * own mode, finds it and keeps every file of the database private. An existing file is left as it
 * is, its mode included: an operator's choice is not changed.
 */
export function createPrivateFile(file: string): void {
  try {
    closeSync(openSync(file, "wx", PRIVATE_FILE_MODE));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
}
