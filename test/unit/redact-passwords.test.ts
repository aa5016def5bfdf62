import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { redactPasswords } from "../../src/domain/redact-passwords.js";

describe("redactPasswords", () => {
  it("hides the password of a URL's user information, keeping the rest", () => {
    assert.equal(
      redactPasswords("ftcapi is serving postgres://ftcapi:s3cret@db.internal:5432/ftcapi"),
      "ftcapi is serving postgres://ftcapi:***@db.internal:5432/ftcapi",
    );
    assert.equal(redactPasswords("got 'ftp://mirror:pw@127.0.0.1/'"), "got 'ftp://mirror:***@127.0.0.1/'");
    assert.equal(redactPasswords("postgresql://:only-pw@host/db"), "postgresql://:***@host/db");
  });

  it("hides a password with an unencoded @ whole", () => {
    assert.equal(redactPasswords("postgres://ftcapi:a@b@host/db"), "postgres://ftcapi:***@host/db");
  });

  it("hides password and sslpassword query parameters", () => {
    assert.equal(
      redactPasswords("postgres://ftcapi@host/db?sslmode=require&password=pw&sslpassword=kp"),
      "postgres://ftcapi@host/db?sslmode=require&password=***&sslpassword=***",
    );
  });

  it("leaves URLs and text without a password as they are", () => {
    for (const text of [
      "postgres://ftcapi@host:5432/db",
      "postgres://host:5432/db",
      "data/ftcapi.db",
      "https://api.ftc.gov/v0/dnc-complaints?api_key=DEMO_KEY",
      "connect ECONNREFUSED 127.0.0.1:5432",
    ]) {
      assert.equal(redactPasswords(text), text);
    }
  });

  it("hides every password in a text", () => {
    assert.equal(
      redactPasswords("postgres://a:one@h1/d and postgres://b:two@h2/d"),
      "postgres://a:***@h1/d and postgres://b:***@h2/d",
    );
  });
});
