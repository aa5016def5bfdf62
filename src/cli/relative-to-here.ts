import { isAbsolute, relative } from "node:path";

/** A path as short as possible for printing: relative to the working directory when inside it. */
export function relativeToHere(path: string): string {
  const shorter = relative(process.cwd(), path);
  return shorter.startsWith("..") || isAbsolute(shorter) ? path : shorter;
}
