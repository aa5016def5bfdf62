#!/usr/bin/env node
import { Command } from "commander";
import { redactPasswords } from "../domain/redact-passwords.js";

/**
 * Each command's module, loaded only when it is asked for: `keys create` has no use for the HTTP
 * server's modules, and a command line tool should answer in a fraction of a second.
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  serve: async () => (await import("./serve-command.js")).serveCommand(),
  import: async () => (await import("./import-command.js")).importCommand(),
  mirror: async () => (await import("./mirror-command.js")).mirrorCommand(),
  keys: async () => (await import("./keys-command.js")).keysCommand(),
  generate: async () => (await import("./generate-command.js")).generateCommand(),
};

const program = new Command("ftcapi")
  .description(
    "A self-hostable FTC public data API: Do Not Call complaints and HSR early-termination notices",
  )
  .showHelpAfterError();

try {
  // The named command alone; every command for help, no command, or a name to correct.
  const asked = process.argv[2] ?? "";
  const names = Object.hasOwn(COMMANDS, asked) ? [asked] : Object.keys(COMMANDS);
  for (const command of await Promise.all(names.map((name) => COMMANDS[name]!())))
    program.addCommand(command);
  await program.parseAsync(process.argv);
} catch (err) {
  // The message only, never a stack, and never a password of a URL it quotes (--db, --upstream).
  process.stderr.write(`ftcapi: ${redactPasswords(err instanceof Error ? err.message : String(err))}\n`);
  // At once: a command that failed, such as a server that could not listen, must not stay up on
  // whatever it left open.
  process.exit(1);
}
