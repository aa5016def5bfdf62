/** A file that cannot be imported at all (wrong header, not CSV, unreadable): nothing of it was written. */
export class ImportFileError extends Error {
  constructor(
    readonly file: string,
    /** What is wrong with the file, without its name. */
    readonly detail: string,
  ) {
    super(`${file}: ${detail}`);
    this.name = "ImportFileError";
  }
}
