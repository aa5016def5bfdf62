import assert from "node:assert/strict";
import { errorCatalog } from "../../src/domain/error-catalog.js";

/**
 * Asserts that an error answer has the documented body (docs/api.md): JSON, either the gateway's
 * `{"error":{"code","message"}}` and nothing else, or a JSON:API error document
 * (`errors[]` with `status` as a string, `code`, `title`, `detail`, optional `source`, and in
 * Drupal's form `jsonapi` and `links.via`), with a code of the error catalog whose status and form
 * are the answer's. Returns the code.
 */
export function assertDocumentedError(
  answer: { status: number; headers: Record<string, string | string[] | undefined>; body: string },
  what: string,
): string {
  const context = `${what}: ${answer.status} ${String(answer.headers["content-type"])} ${answer.body.slice(0, 300)}`;
  const contentType = String(answer.headers["content-type"] ?? "");
  assert.match(contentType, /^application\/(json|vnd\.api\+json)(;|$)/, context);
  const body = JSON.parse(answer.body);
  if ("error" in body) {
    assert.deepEqual(Object.keys(body), ["error"], context);
    assert.deepEqual(Object.keys(body.error), ["code", "message"], context);
    assert.equal(typeof body.error.message, "string", context);
    const entry = catalogEntry(body.error.code, context);
    assert.equal(entry.format, "gateway", context);
    assert.equal(entry.status, answer.status, context);
    return body.error.code;
  }
  assert.ok(Array.isArray(body.errors) && body.errors.length === 1, context);
  const keys = Object.keys(body).sort();
  assert.ok(
    JSON.stringify(keys) === '["errors"]' || JSON.stringify(keys) === '["errors","jsonapi"]',
    context,
  );
  const [error] = body.errors;
  for (const key of Object.keys(error))
    assert.ok(["status", "code", "title", "detail", "source", "links"].includes(key), `${context}: ${key}`);
  const entry = catalogEntry(error.code, context);
  assert.equal(entry.format, "jsonapi", context);
  assert.equal(error.status, String(answer.status), context);
  assert.equal(entry.status, answer.status, context);
  assert.equal(error.title, entry.title, context);
  assert.equal(typeof error.detail, "string", context);
  return error.code;
}

function catalogEntry(code: unknown, context: string) {
  assert.equal(typeof code, "string", context);
  assert.match(code as string, /^[A-Z][A-Z0-9_]*$/, context);
  assert.ok(Object.hasOwn(errorCatalog, code as string), `${context}: ${String(code)} is not in the catalog`);
  return errorCatalog[code as keyof typeof errorCatalog];
}
