import assert from "node:assert/strict";
import { it } from "node:test";
import { PageBufferPool } from "../../src/store/page-buffer-pool.js";

it("PageBufferPool hands out memory of a page's own, in powers of two from 16 KB, and the same memory again once given back", () => {
  const pool = new PageBufferPool();
  const first = pool.take(33_000);
  assert.equal(first.length, 33_000);
  assert.equal(first.byteOffset, 0);
  assert.equal(first.buffer.byteLength, 64 * 1024);
  const small = pool.take(10);
  assert.equal(small.length, 10);
  assert.equal(small.buffer.byteLength, 16 * 1024);
  assert.notEqual(small.buffer, first.buffer);

  pool.give(first.buffer as ArrayBuffer);
  assert.equal(pool.unusedBytes, 64 * 1024);
  const again = pool.take(40_000);
  assert.equal(again.buffer, first.buffer, "the memory given back is handed out for a page of its size");
  assert.equal(again.length, 40_000);
  assert.equal(pool.unusedBytes, 0);
  // Another size's memory is not handed out for it.
  pool.give(small.buffer as ArrayBuffer);
  assert.notEqual(pool.take(20_000).buffer, small.buffer);
});

it("PageBufferPool gives a page over 1 MB memory of its exact size, and keeps no memory it does not hand out", () => {
  const pool = new PageBufferPool();
  const large = pool.take(1024 * 1024 + 1);
  assert.equal(large.byteOffset, 0);
  assert.equal(large.buffer.byteLength, 1024 * 1024 + 1);
  pool.give(large.buffer as ArrayBuffer);
  pool.give(new ArrayBuffer(20_000));
  assert.equal(pool.unusedBytes, 0);
});

it("PageBufferPool holds at most 8 MB unused", () => {
  const pool = new PageBufferPool();
  const pages = Array.from({ length: 12 }, () => pool.take(1024 * 1024));
  for (const page of pages) pool.give(page.buffer as ArrayBuffer);
  assert.equal(pool.unusedBytes, 8 * 1024 * 1024);
});
