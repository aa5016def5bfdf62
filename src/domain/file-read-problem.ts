/**
 * Why a file named by an option could not be read, in words for an operator: `what` names what
 * the file should hold (such as "PEM certificate"). Unknown errors give their code or message.
 */
export function fileReadProblem(err: unknown, what: string): string {
  const code = (err as { code?: unknown } | undefined)?.code;
  if (code === "ENOENT") return "no such file";
  if (code === "EISDIR") return `is a directory, not a ${what} file`;
  if (code === "EACCES") return "permission denied: this user cannot read it";
  if (typeof code === "string") return code;
  return err instanceof Error ? err.message : String(err);
}
