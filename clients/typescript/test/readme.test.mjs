// The README's TypeScript examples run as written, against the test hub.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import { test } from "node:test";
import { promisify } from "node:util";

const READMES = ["../README.md", "../../../README.md"].map((p) => new URL(p, import.meta.url));

for (const readme of READMES.filter((r) => existsSync(r))) {
  const text = await readFile(readme, "utf8");
  const examples = [...text.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]).filter((code) => code.includes('from "memhub-client"'));
  examples.forEach((code, index) => {
    const name = readme === READMES[0] ? "clients/typescript/README.md" : "README.md";
    test(`${name} example ${index + 1} runs as written`, async () => {
      // Only the hub's address changes; the file sits in the package, so "memhub-client" is this one.
      const script = new URL(`./.readme-example-${index}.mjs`, import.meta.url);
      await writeFile(script, code.replaceAll("http://127.0.0.1:8420", process.env.MEMHUB_URL));
      try {
        const { stdout } = await promisify(execFile)(process.execPath, [script.pathname], { timeout: 120_000 });
        assert.ok(stdout.length > 0);
      } finally {
        await rm(script, { force: true });
      }
    });
  });
}
