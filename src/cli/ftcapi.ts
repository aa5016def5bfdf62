#!/usr/bin/env node
import { Command } from "commander";
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
  process.stderr.write(`ftcapi: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
