#!/usr/bin/env node
import { Command } from "commander";
import { redactPasswords } from "../domain/redact-passwords.js";
import { generateCommand } from "./generate-command.js";
import { importCommand } from "./import-command.js";
import { keysCommand } from "./keys-command.js";
import { mirrorCommand } from "./mirror-command.js";
import { serveCommand } from "./serve-command.js";

const program = new Command("ftcapi")
  .description(
    "A self-hostable FTC public data API: Do Not Call complaints and HSR early-termination notices",
  )
  .showHelpAfterError()
  .addCommand(serveCommand())
  .addCommand(importCommand())
  .addCommand(mirrorCommand())
  .addCommand(keysCommand())
  .addCommand(generateCommand());

try {
  await program.parseAsync(process.argv);
} catch (err) {
  // The message only, never a stack, and never a password of a URL it quotes (--db, --upstream).
  process.stderr.write(`ftcapi: ${redactPasswords(err instanceof Error ? err.message : String(err))}\n`);
  // At once: a command that failed, such as a server that could not listen, must not stay up on
  // whatever it left open.
  process.exit(1);
}
