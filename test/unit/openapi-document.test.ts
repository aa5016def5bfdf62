import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { openApiDocument } from "../../src/domain/openapi-document.js";

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => void;

type Json = Record<string, any>;

/** Every schema of a document: components, parameters, headers and media types. */
function schemasOf(document: Json): Array<[string, Json]> {
  const found: Array<[string, Json]> = Object.entries(document.components.schemas).map(([name, schema]) => [
    `components/${name}`,
    schema as Json,
  ]);
  for (const [path, item] of Object.entries(document.paths as Record<string, Json>)) {
    for (const [method, operation] of Object.entries(item as Record<string, Json>)) {
      for (const parameter of operation.parameters ?? [])
        found.push([`${method} ${path} ${parameter.name}`, parameter.schema]);
      for (const [status, response] of Object.entries(operation.responses as Record<string, Json>)) {
        for (const [name, header] of Object.entries((response.headers ?? {}) as Record<string, Json>)) {
          found.push([`${method} ${path} ${status} ${name}`, header.schema]);
        }
        for (const [mediaType, content] of Object.entries((response.content ?? {}) as Record<string, Json>)) {
          found.push([`${method} ${path} ${status} ${mediaType}`, content.schema]);
        }
      }
    }
  }
  return found;
}

{
  describe("the OpenAPI document", () => {
    const document = openApiDocument("https://ftcapi.invalid") as Json;

    it("compiles every schema under Ajv's strict mode (JSON Schema 2020-12)", () => {
      const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
      ajv.addVocabulary(["example"]);
      addFormats(ajv);
      const rebase = (schema: unknown) =>
        JSON.parse(
          JSON.stringify(schema).replaceAll('"#/components/schemas/', '"https://ftcapi.invalid/schemas/'),
        );
      for (const [name, schema] of Object.entries(document.components.schemas)) {
        ajv.addSchema({ ...rebase(schema), $id: `https://ftcapi.invalid/schemas/${name}` });
      }
      for (const [where, schema] of schemasOf(document)) {
        assert.ok(schema !== undefined, `${where} has no schema`);
        assert.doesNotThrow(() => ajv.compile(rebase(schema)), where);
      }
    });

    it("gives every operation a distinct operationId", () => {
      const ids = Object.values(document.paths as Record<string, Json>).flatMap((item) =>
        Object.values(item).map((operation: Json) => operation.operationId),
      );
      assert.ok(
        ids.every((id) => typeof id === "string" && /^[a-z][A-Za-z]+$/.test(id)),
        JSON.stringify(ids),
      );
      assert.equal(new Set(ids).size, ids.length);
    });

    it("closes every object schema of the components", () => {
      const open: string[] = [];
      const visit = (schema: unknown, where: string) => {
        if (typeof schema !== "object" || schema === null) return;
        const record = schema as Json;
        if (record.type === "object" && record.additionalProperties !== false && record.properties)
          open.push(where);
        for (const [key, value] of Object.entries(record)) visit(value, `${where}/${key}`);
      };
      visit(document.components.schemas, "components/schemas");
      assert.deepEqual(open, []);
    });
  });
}
