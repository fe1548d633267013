// src/schema.ts is what openapi-typescript makes of the hub's OpenAPI document, as committed.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { generated } from "../scripts/generate.mjs";

test("the committed types are generated from the hub's current OpenAPI document", async () => {
  const current = await readFile(new URL("../src/schema.ts", import.meta.url), "utf8");
  assert.ok(current === (await generated()), "src/schema.ts is out of date: run `npm run generate` (or `make clients`)");
});
