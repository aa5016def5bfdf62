import { Command, InvalidArgumentError } from "commander";
import { createKey, KEY_PREFIX_LENGTH, loadKeySecret } from "../access/api-keys.js";
import { DB_OPTION, databaseConfig, keySecretConfig } from "../config.js";
import { unprintableCharacter } from "../domain/signup-form.js";
import { nowSeconds, SECONDS_PER_DAY, SECONDS_PER_HOUR } from "../domain/time.js";
import type { Database } from "../store/database.js";
import { type ApiKeyRecord, KeyStore } from "../store/key-store.js";
import { migrate } from "../store/migrate.js";
import { SettingsStore } from "../store/settings-store.js";
import { openCommandDatabase } from "./open-command-database.js";

/** `ftcapi keys ...`: the key lifecycle, for operators. */
export function keysCommand(): Command {
  const keys = new Command("keys").description(
    "Manage API keys (create, list, disable, enable, limit, delete, usage)",
  );
  addCreateCommand(keys);
  addListCommand(keys);
  addStatusCommands(keys);
  addLimitCommand(keys);
  addDeleteCommand(keys);
  addUsageCommand(keys);
  return keys;
}

interface CreateFlags {
  email: string;
  firstName?: string;
  lastName?: string;
  use?: string;
  limitPerHour?: number;
  unlimited?: boolean;
  keySecret?: string;
  db?: string;
}

function addCreateCommand(keys: Command): void {
  keys
    .command("create")
    .description("Create an API key; the key is printed once, alone on the last line")
    .requiredOption("--email <address>", "the key owner's e-mail address")
    .option("--first-name <name>", "the owner's first name")
    .option("--last-name <name>", "the owner's last name")
    .option("--use <text>", "how the key will be used")
    .option("--limit-per-hour <n>", "this key's hourly limit (default: the server's)", positiveInteger)
    .option("--unlimited", "no rate limit for this key")
    .option(
      "--key-secret <secret>",
      "HMAC secret for key hashes [env FTCAPI_KEY_SECRET] (default: kept in the database)",
    )
    .option(...DB_OPTION)
    .action(createKeyAction);
}

async function createKeyAction(flags: CreateFlags): Promise<void> {
  for (const [option, value, lineBreaks] of [
    ["--email", flags.email, false],
    ["--first-name", flags.firstName, false],
    ["--last-name", flags.lastName, false],
    ["--use", flags.use, true],
  ] as const) {
    const unprintable = value === undefined ? undefined : unprintableCharacter(value, { lineBreaks });
    if (unprintable !== undefined)
      throw new Error(
        `${option}: must not contain control or other unprintable characters; found ${unprintable}`,
      );
  }
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(flags.email))
    throw new Error(`--email: not an e-mail address: '${printable(flags.email)}'`);
  if (flags.unlimited && flags.limitPerHour !== undefined)
    throw new Error("--limit-per-hour and --unlimited exclude each other");
  await withKeyStore(
    flags,
    async (store, database) => {
      const secret = await loadKeySecret(new SettingsStore(database), keySecretConfig(flags));
      const { key, record } = await createKey(store, secret, {
        email: flags.email,
        firstName: flags.firstName,
        lastName: flags.lastName,
        useText: flags.use,
        limitPerHour: flags.unlimited ? "unlimited" : flags.limitPerHour,
      });
      process.stdout.write(
        `Created key ${printable(record.prefix)}... for ${printable(record.email)} (${limitText(record)}). It is shown once; keep it safe.\n${key}\n`,
      );
    },
    true,
  );
}

function addListCommand(keys: Command): void {
  keys
    .command("list")
    .description("List keys: prefix, e-mail, created, last used, status, limit")
    .option(...DB_OPTION)
    .action(async (flags: { db?: string }) => {
      await withKeyStore(flags, async (store) => {
        const rows = (await store.list()).map((key) => [
          printable(key.prefix),
          printable(key.email),
          isoMinute(key.createdAt),
          key.lastUsedAt === null ? "never" : isoMinute(key.lastUsedAt),
          key.status,
          limitText(key),
        ]);
        printTable(["PREFIX", "EMAIL", "CREATED", "LAST USED", "STATUS", "LIMIT"], rows);
      });
    });
}

function addStatusCommands(keys: Command): void {
  for (const [name, status, verb] of [
    ["disable", "disabled", "Disabled"],
    ["enable", "active", "Enabled"],
  ] as const) {
    keys
      .command(`${name} <prefix>`)
      .description(`${verb.slice(0, -1)} the key whose first ${KEY_PREFIX_LENGTH} characters are <prefix>`)
      .option(...DB_OPTION)
      .action(async (prefix: string, flags: { db?: string }) => {
        await withKeyStore(flags, async (store) => {
          const changed = await store.setStatus(keyPrefix(prefix), status);
          if (changed === 0) throw new Error(`no key starts with '${printable(prefix)}'`);
          process.stdout.write(`${verb} ${changed} key(s) starting with ${keyPrefix(prefix)}\n`);
        });
      });
  }
}

function addLimitCommand(keys: Command): void {
  keys
    .command("limit <prefix>")
    .description("Set a key's hourly limit, remove it (--unlimited), or return to the default (--default)")
    .option("--per-hour <n>", "requests an hour", positiveInteger)
    .option("--unlimited", "no limit")
    .option("--default", "the server's default limit")
    .option(...DB_OPTION)
    .action(
      async (
        prefix: string,
        flags: { perHour?: number; unlimited?: boolean; default?: boolean; db?: string },
      ) => {
        const choices = [
          flags.perHour !== undefined,
          flags.unlimited === true,
          flags.default === true,
        ].filter(Boolean);
        if (choices.length !== 1) throw new Error("give exactly one of --per-hour N, --unlimited, --default");
        await withKeyStore(flags, async (store) => {
          const limit = flags.unlimited ? "unlimited" : flags.default ? null : flags.perHour!;
          const changed = await store.setLimit(keyPrefix(prefix), limit);
          if (changed === 0) throw new Error(`no key starts with '${printable(prefix)}'`);
          process.stdout.write(
            `Set the limit of ${changed} key(s) starting with ${keyPrefix(prefix)} to ${limit ?? "the default"}\n`,
          );
        });
      },
    );
}

function addDeleteCommand(keys: Command): void {
  keys
    .command("delete <prefix>")
    .description("Delete a key and its usage history")
    .option(...DB_OPTION)
    .action(async (prefix: string, flags: { db?: string }) => {
      await withKeyStore(flags, async (store) => {
        const deleted = await store.delete(keyPrefix(prefix));
        if (deleted === 0) throw new Error(`no key starts with '${printable(prefix)}'`);
        process.stdout.write(`Deleted ${deleted} key(s) starting with ${keyPrefix(prefix)}\n`);
      });
    });
}

function addUsageCommand(keys: Command): void {
  keys
    .command("usage <prefix>")
    .description("Requests per hour of a key over the last days")
    .option("--days <n>", "how many days back", positiveInteger, 7)
    .option(...DB_OPTION)
    .action(async (prefix: string, flags: { days: number; db?: string }) => {
      await withKeyStore(flags, async (store) => {
        const [key] = await store.findByPrefix(keyPrefix(prefix));
        if (!key) throw new Error(`no key starts with '${printable(prefix)}'`);
        const since =
          Math.floor(nowSeconds() / SECONDS_PER_HOUR) * SECONDS_PER_HOUR - flags.days * SECONDS_PER_DAY;
        const usage = await store.usage(key.id, since);
        const total = usage.reduce((sum, hour) => sum + hour.count, 0);
        printTable(
          ["HOUR (UTC)", "REQUESTS"],
          usage.map((hour) => [isoMinute(hour.hour), String(hour.count)]),
        );
        process.stdout.write(
          `${total} requests by ${printable(key.prefix)}... in the last ${flags.days} days\n`,
        );
      });
    });
}

/** Runs `work` on the key store; only `keys create` may create the database (`creates`). */
async function withKeyStore(
  flags: { db?: string },
  work: (store: KeyStore, database: Database) => Promise<void>,
  creates = false,
): Promise<void> {
  const database = openCommandDatabase(databaseConfig(flags).db, { mustExist: !creates });
  try {
    await migrate(database);
    await work(new KeyStore(database), database);
  } finally {
    await database.close();
  }
}

/**
 * Text from the database (or the command line) as it may be written to a terminal: control and
 * other unprintable characters (and line breaks, tabs, backslashes) are written as escapes such
 * as `\x1b`, `\u202e` or `\\`, so that stored text can neither move the cursor, clear the
 * screen, retitle the window nor break a table's lines. Printable text is unchanged.
 */
function printable(text: string): string {
  return text.replace(/(?!\u200c|\u200d)[\p{C}\p{Zl}\p{Zp}\\]/gu, (character) => {
    if (character === "\\") return "\\\\";
    const code = character.codePointAt(0)!;
    if (code < 0x100) return `\\x${code.toString(16).padStart(2, "0")}`;
    if (code < 0x10000) return `\\u${code.toString(16).padStart(4, "0")}`;
    return `\\u{${code.toString(16)}}`;
  });
}

function keyPrefix(text: string): string {
  if (text.length < KEY_PREFIX_LENGTH)
    throw new Error(`give the key's first ${KEY_PREFIX_LENGTH} characters; got '${printable(text)}'`);
  return text.slice(0, KEY_PREFIX_LENGTH);
}

function positiveInteger(text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1) throw new InvalidArgumentError("must be a whole number, at least 1");
  return value;
}

function limitText(key: ApiKeyRecord): string {
  if (key.unlimited) return "unlimited";
  return key.limitPerHour === null ? "default" : `${key.limitPerHour}/hour`;
}

function isoMinute(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 16).replace("T", " ");
}

function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length)),
  );
  for (const row of [header, ...rows]) {
    process.stdout.write(
      `${row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join("  ")
        .trimEnd()}\n`,
    );
  }
}
