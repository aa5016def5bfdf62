import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { launchChromium, NO_CHROMIUM } from "../support/chromium.js";
import { makeTempDirectory, startTestServer } from "../support/test-server.js";

describe("sign-up in a real browser", () => {
  it("a person fills in the form in headless Chromium and gets a working key", async (t) => {
    if (NO_CHROMIUM) {
      t.skip(NO_CHROMIUM);
      return;
    }
    const server = await startTestServer({ db: join(await makeTempDirectory(), "ftcapi.db") });
    const browser = await launchChromium();
    try {
      const context = await browser.newContext({ ignoreHTTPSErrors: true });
      const page = await context.newPage();
      await page.goto(`${server.httpsUrl}/signup`);
      await page.getByLabel("First name").fill("Grace");
      await page.getByLabel("Last name").fill("Hopper");
      await page.getByLabel("E-mail").fill("not-an-address");
      await page.getByLabel("How will you use the API?").fill("Teaching");
      await page.getByLabel(/I agree to the terms/).check();
      // The browser's own validation stops a malformed address before it is sent.
      await page.getByRole("button", { name: "Get my key" }).click();
      assert.equal(await page.locator("#api-key").count(), 0);
      await page.getByLabel("E-mail").fill("grace@example.org");
      await page.getByRole("button", { name: "Get my key" }).click();
      const key = (await page.locator("#api-key").textContent())?.trim() ?? "";
      assert.match(key, /^[A-Za-z0-9]{40}$/);
      const res = await server.get("/v0/dnc-complaints?items_per_page=1", { "X-Api-Key": key });
      assert.equal(res.status, 200);
    } finally {
      await browser.close();
      await server.stop();
    }
  });
});
