// The client against a real hub (MEMHUB_URL; `npm test` starts one when unset), as agents use it.
import assert from "node:assert/strict";
import { test } from "node:test";
import { HubUnreachable, Memhub, MemhubError, NotAcknowledged } from "memhub-client";

const url = process.env.MEMHUB_URL;
assert.ok(url, "run the tests with `npm test`, which starts a hub, or set MEMHUB_URL");
// Agents of this run only, so that a hub kept running between runs gives the same results.
const run = Date.now().toString(36);
const agent = (name, options = {}) => new Memhub({ url, agent: `${name}-${run}`, backoffMs: 10, ...options });

/** A fetch that passes each request to the hub and loses the first `lose` answers (a timeout), or
 * answers the first `refuse` with a 503 without sending them; it notes each request it saw. */
function unreliable({ lose = 0, refuse = 0 } = {}) {
  const sent = [];
  const faulty = async (input, init) => {
    sent.push({ method: init.method, path: new URL(input).pathname, body: init.body && JSON.parse(init.body) });
    if (refuse > 0) {
      refuse -= 1;
      return new Response(JSON.stringify({ detail: "the proxy has no hub to send this to" }), { status: 503 });
    }
    const answer = await fetch(input, init);
    const body = await answer.arrayBuffer(); // the hub has answered: whatever it did is done
    if (lose > 0) {
      lose -= 1;
      throw new TypeError("fetch failed: the hub's answer was lost");
    }
    return new Response(body, { status: answer.status, headers: answer.headers });
  };
  return { sent, fetch: faulty };
}

test("two agents publish, search, and see their conflict, and the owner decides it", async () => {
  const wa = agent("wa", { channel: "whatsapp" });
  const tg = agent("tg", { channel: "telegram" });
  await wa.wait(await wa.publish("Netanel works until 20:00", { source: "wa:msg:1841" }));
  const [school, newer] = [
    await tg.publish("Dana's son starts school on 1 September", { scope: "person", person: "Dana" }),
    await tg.publish("Netanel finishes work at 18:00"),
  ];
  const statuses = await tg.wait([school, newer]);
  assert.deepEqual(statuses.map((s) => s.status), ["stored", "stored"]);

  const hits = (await tg.search("when does Netanel finish work?")).slice(0, 2);
  assert.deepEqual(hits.map((h) => h.agent), [tg.agent, wa.agent]); // the newer side first
  assert.deepEqual(hits.map((h) => h.channel), ["telegram", "whatsapp"]);
  const [conflict] = await tg.conflicts();
  assert.ok(conflict && conflict.status === "open", JSON.stringify(conflict));
  assert.deepEqual(hits.map((h) => h.conflict_ids), [[conflict.id], [conflict.id]]);
  assert.deepEqual((await wa.search("school", { person: "Dana" })).map((h) => h.text).slice(0, 1), ["Dana's son starts school on 1 September"]);
  assert.ok(!(await wa.search("school")).some((h) => h.person === "Dana")); // a person's, only when asked

  for (const question of await wa.questions()) assert.ok(Object.keys(question.options).length >= 2);
  const decided = await wa.resolveConflict(conflict.id, statuses[1].memory_id, { note: "the owner said 18:00" });
  assert.equal(decided.resolution.keep, statuses[1].memory_id);
  await assert.rejects(wa.resolveConflict(conflict.id, "both"), (error) => error instanceof MemhubError && error.status === 409);
});

test("the core block and forgetting", async () => {
  const wa = agent("core", { channel: "whatsapp" });
  const core = await wa.loadCore();
  assert.equal(core.agent, wa.agent);
  assert.equal(typeof core.markdown, "string");

  const { memory_id } = await wa.wait(await wa.publish("Yael's locker code moved to the blue cabinet"));
  assert.equal((await wa.search("where is the locker?"))[0]?.id, memory_id);
  const forgotten = await wa.forget(memory_id);
  assert.ok(forgotten.forgotten.includes(memory_id), JSON.stringify(forgotten));
  assert.deepEqual((await wa.search("where is the locker?")).filter((h) => h.id === memory_id), []);
});

test("a publish whose answers are lost is sent again with the same id and stored once", async () => {
  const faulty = unreliable({ lose: 2 });
  const wa = agent("lossy", { fetch: faulty.fetch });
  const id = await wa.publish("Noa's swimming moved to Thursdays");
  assert.equal(faulty.sent.length, 3);
  assert.deepEqual(faulty.sent.map((r) => r.body.events[0].id), [id, id, id]); // made before the first try
  const status = await agent("lossy").wait(id);
  const hits = await agent("lossy").search("swimming", { agents: [wa.agent] });
  assert.deepEqual(hits.map((h) => h.id), [status.memory_id]);
});

test("after every try, NotAcknowledged holds the events; published again they are stored once", async () => {
  const faulty = unreliable({ lose: 10 });
  const error = await agent("unacked", { fetch: faulty.fetch, retries: 2 })
    .publish("The plumber comes on Sunday at 9")
    .then(() => assert.fail("published"), (e) => e);
  assert.ok(error instanceof NotAcknowledged, String(error));
  assert.equal(faulty.sent.length, 3);
  assert.match(error.message, /publishMany\(error\.events\)/);
  const wa = agent("unacked");
  assert.deepEqual(await wa.publishMany(error.events), error.eventIds);
  const { memory_id } = await wa.wait(error.eventIds[0]);
  assert.deepEqual((await wa.search("plumber", { agents: [wa.agent] })).map((h) => h.id), [memory_id]);
});

test("a 503 is tried again; what the hub refuses is not, and the error names what to fix", async () => {
  const refused = unreliable({ refuse: 2 });
  assert.ok(Array.isArray(await agent("retry", { fetch: refused.fetch }).search("anything")));
  assert.equal(refused.sent.length, 3);

  const once = unreliable();
  const wa = agent("refused", { fetch: once.fetch });
  await assert.rejects(wa.publish("Dana seems to prefer tea", { kind: "deduced" }), (error) => {
    assert.ok(error instanceof MemhubError && error.status === 422);
    assert.match(error.message, /evidence/);
    return true;
  });
  await assert.rejects(wa.publish("the router's admin password: Wq8-rT3p-Lm2x"), /422/);
  assert.equal(once.sent.length, 2); // each sent once
});

test("mistakes are named before anything is sent", async () => {
  assert.throws(() => new Memhub({ url }), /`agent` is required/);
  assert.throws(() => new Memhub({ url: "localhost 8420", agent: "wa" }), /is no URL/);
  await assert.rejects(agent("x").publish(""), /`text` is required/);
  const nowhere = new Memhub({ url: "http://127.0.0.1:9", agent: "wa", retries: 1, backoffMs: 1 });
  await assert.rejects(nowhere.search("x"), (error) => error instanceof HubUnreachable && error.message.includes("http://127.0.0.1:9"));
});
