import { Command } from "commander";
import { createKey, loadKeySecret } from "../access/api-keys.js";
import { databaseConfig } from "../config.js";
import { openDatabase } from "../store/database.js";
import { KeyStore } from "../store/key-store.js";
import { migrate } from "../store/migrate.js";
import { SettingsStore } from "../store/settings-store.js";

/** `ftcapi keys ...`: API keys. */
export function keysCommand(): Command {
  const keys = new Command("keys").description("Manage API keys");
  keys
    .command("create")
    .description("Create an API key; the key is printed once, alone on the last line")
    .requiredOption("--email <address>", "the key owner's e-mail address")
    .option("--first-name <name>", "the owner's first name")
    .option("--last-name <name>", "the owner's last name")
    .option("--use <text>", "how the key will be used")
    .option("--db <path>", "SQLite database file [env FTCAPI_DB] (default: data/ftcapi.db)")
    .action(async (flags: { email: string; firstName?: string; lastName?: string; use?: string; db?: string }) => {
      if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(flags.email)) throw new Error(`--email: not an e-mail address: '${flags.email}'`);
      const database = openDatabase(databaseConfig(flags).db);
      try {
        await migrate(database);
        const secret = await loadKeySecret(new SettingsStore(database));
        const { key, record } = await createKey(new KeyStore(database), secret, {
          email: flags.email,
          firstName: flags.firstName,
          lastName: flags.lastName,
          useText: flags.use,
        });
        process.stdout.write(`Created key ${record.prefix}... for ${record.email}. It is shown once; keep it safe.\n${key}\n`);
      } finally {
        await database.close();
      }
    });
  return keys;
}
