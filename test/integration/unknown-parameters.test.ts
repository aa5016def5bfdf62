import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { DIALECTS, freshDatabase } from "../support/dialects.js";
import { createTestKey, importFiles } from "../support/seed.js";
import { makeTempDirectory, startTestServer, type TestServer } from "../support/test-server.js";

const COMPLAINTS = [
  "Company_Phone_Number,Created_Date,Violation_Date,Consumer_City,Consumer_State,Consumer_Area_Code,Subject,Recorded_Message_Or_Robocall",
  "2025550100,2024-03-20 10:00:00,2024-03-19 09:00:00,Austin,Texas,512,Other,Y",
  "2025550101,2024-03-20 11:00:00,2024-03-19 09:00:00,Dallas,Texas,214,Other,N",
  "2025550102,2024-03-20 12:00:00,2024-03-19 09:00:00,Reno,Nevada,775,Other,N",
];
const NOTICES = [
  "transaction_number,acquiring_party,acquired_party,acquired_entities,date,created,updated",
  "20210001,Acme Holdings,Widget Co,Widget Co,2021-01-05,2021-01-06T10:00:00+00:00,2021-01-06T10:00:00+00:00",
  "20210002,Beta Capital,Gadget LLC,Gadget LLC,2021-01-07,2021-01-08T10:00:00+00:00,2021-01-08T10:00:00+00:00",
];

for (const dialect of DIALECTS) {
  describe(`parameters the API does not take (${dialect})`, () => {
    let strict: TestServer;
    let lenient: TestServer;
    let key: string;

    before(async () => {
      const directory = await makeTempDirectory();
      const db = await freshDatabase(dialect);
      await writeFile(join(directory, "dnc.csv"), `${COMPLAINTS.join("\r\n")}\r\n`);
      await writeFile(join(directory, "notices.csv"), `${NOTICES.join("\n")}\n`);
      await importFiles(db, {
        complaints: [join(directory, "dnc.csv")],
        notices: [join(directory, "notices.csv")],
      });
      key = await createTestKey(db, { email: "compat@example.com", limitPerHour: 1000 });
      strict = await startTestServer({ db });
      lenient = await startTestServer({ db, ignoreUnknownParameters: true });
    });
    after(async () => {
      await strict?.stop();
      await lenient?.stop();
    });

    const get = (server: TestServer, path: string) => server.get(path, { "X-Api-Key": key });

    it("refuses them by default, naming the parameter, with no Ignored-Parameters header", async () => {
      const answer = await get(strict, "/v0/dnc-complaints?filter[consumer-state]=Ohio");
      assert.equal(answer.status, 400);
      assert.equal(answer.json().errors[0].code, "UNKNOWN_PARAMETER");
      assert.equal(answer.json().errors[0].source.parameter, "filter[consumer-state]");
      assert.equal(answer.headers["ignored-parameters"], undefined);
      const notices = await get(strict, "/v0/hsr-early-termination-notices?include=node_type");
      assert.equal(notices.status, 400);
    });

    it("ignores them in compatibility mode as the live service does, and names them", async () => {
      const plain = await get(lenient, "/v0/dnc-complaints");
      const answer = await get(
        lenient,
        "/v0/dnc-complaints?filter[consumer-state]=Ohio&page[size]=10&x%2Cy=1",
      );
      assert.equal(answer.status, 200);
      assert.equal(answer.headers["ignored-parameters"], "filter[consumer-state], page[size], x%2Cy");
      assert.deepEqual(answer.json().data, plain.json().data);
      assert.equal(answer.json().meta["record-total"], 3);
      assert.equal(plain.headers["ignored-parameters"], undefined);
    });

    it("still applies and checks the parameters it takes", async () => {
      const filtered = await get(lenient, "/v0/dnc-complaints?state=Texas&page[size]=1");
      assert.equal(filtered.status, 200);
      assert.equal(filtered.json().meta["record-total"], 2);
      assert.equal(filtered.headers["ignored-parameters"], "page[size]");
      const bad = await get(lenient, "/v0/dnc-complaints?items_per_page=500&page[size]=1");
      assert.equal(bad.status, 400);
      assert.equal(bad.json().errors[0].code, "INVALID_PARAMETER");
    });

    it("ignores them on the notices and on single records", async () => {
      const notices = await get(lenient, "/v0/hsr-early-termination-notices?include=node_type&title=Acme");
      assert.equal(notices.status, 200);
      assert.equal(notices.json().meta.count, 1);
      assert.equal(notices.headers["ignored-parameters"], "include");
      const id = notices.json().data[0].id;
      const one = await get(lenient, `/v0/hsr-early-termination-notices/${id}?include=node_type`);
      assert.equal(one.status, 200);
      assert.equal(one.headers["ignored-parameters"], "include");
      const complaintId = (await get(lenient, "/v0/dnc-complaints")).json().data[0].id;
      const complaint = await get(lenient, `/v0/dnc-complaints/${complaintId}?format=json`);
      assert.equal(complaint.status, 200);
      assert.equal(complaint.headers["ignored-parameters"], "format");
      const refused = await get(strict, `/v0/dnc-complaints/${complaintId}?format=json`);
      assert.equal(refused.status, 400);
    });

    it("never names the API key", async () => {
      const answer = await lenient.get(`/v0/dnc-complaints?api_key=${key}&unknown=1`);
      assert.equal(answer.status, 200);
      assert.equal(answer.headers["ignored-parameters"], "unknown");
    });
  });
}
