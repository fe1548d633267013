// Runs a command (the tests) against a real hub: the one at MEMHUB_URL when set, else a `memhub up`
// started here on a temporary data folder and a free port, stopped when the command ends.
//   node scripts/with-hub.mjs node --test test/
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url)); // the hub's repository
const [command, ...args] = process.argv.slice(2);

function run(env) {
  return new Promise((resolve) => {
    spawn(command, args, { stdio: "inherit", env }).on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

async function healthy(url, hub, log, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (hub.exitCode !== null) throw new Error(`memhub up exited with ${hub.exitCode}:\n${readFileSync(log, "utf8").slice(-3000)}`);
    try {
      if ((await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) })).ok) return;
    } catch {
      // not listening yet: it is loading the model
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`memhub up not healthy after ${timeoutMs} ms:\n${readFileSync(log, "utf8").slice(-3000)}`);
}

if (process.env.MEMHUB_URL) {
  process.exit(await run(process.env));
}

const memhub = process.env.MEMHUB_COMMAND ?? join(ROOT, ".venv", "bin", "memhub");
if (!existsSync(memhub)) {
  console.error(`no hub to test against: set MEMHUB_URL to a running hub, or run \`make setup\` in ${ROOT} so that ${memhub} exists (or set MEMHUB_COMMAND)`);
  process.exit(2);
}
const folder = mkdtempSync(join(tmpdir(), "memhub-ts-"));
const port = await freePort();
const url = `http://127.0.0.1:${port}`;
const log = join(folder, "up.log");
const env = { ...process.env, MEMHUB_DATA_DIR: join(folder, "data") };
const hub = spawn(memhub, ["up", "--data-dir", env.MEMHUB_DATA_DIR, "--port", String(port)], {
  env,
  stdio: ["ignore", openSync(log, "a"), openSync(log, "a")],
});
let code = 1;
try {
  await healthy(url, hub, log, 180_000);
  console.log(`# against memhub up at ${url}`);
  code = await run({ ...process.env, MEMHUB_URL: url });
} catch (error) {
  console.error(error.message);
} finally {
  if (hub.exitCode === null) {
    const exited = new Promise((resolve) => hub.on("exit", resolve));
    hub.kill("SIGTERM");
    await exited;
  }
  rmSync(folder, { recursive: true, force: true });
}
process.exit(code);
