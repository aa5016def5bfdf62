import type { FastifyReply } from "fastify";

/** What the API does with a query parameter it does not take. */
export type UnknownParameters = "refuse" | "ignore";

/** The answer header that names the parameters ignored (`--ignore-unknown-parameters`). */
export const IGNORED_PARAMETERS_HEADER = "Ignored-Parameters";

/**
 * The request's parameters a route should parse. Refusing (the default), all of them, so that the
 * parser answers 400 UNKNOWN_PARAMETER naming the first it does not take. Ignoring, as the live
 * service does, only those `isKnown` accepts, the others named in the answer's
 * `Ignored-Parameters` header (comma-separated, in request order; a name with a comma, a space or
 * a character outside printable ASCII percent-encoded).
 */
export function parametersToParse<Pair extends readonly [string, string]>(
  pairs: readonly Pair[],
  isKnown: (name: string) => boolean,
  policy: UnknownParameters,
  reply: FastifyReply,
): Pair[] {
  if (policy === "refuse") return [...pairs];
  const kept: Pair[] = [];
  const ignored: string[] = [];
  for (const pair of pairs) {
    if (isKnown(pair[0])) kept.push(pair);
    else if (!ignored.includes(pair[0])) ignored.push(pair[0]);
  }
  if (ignored.length > 0) {
    const names = ignored.map((name) =>
      /^[\x21-\x2b\x2d-\x7e]+$/.test(name) ? name : encodeURIComponent(name),
    );
    reply.header(IGNORED_PARAMETERS_HEADER, names.join(", "));
  }
  return kept;
}
