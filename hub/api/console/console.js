"use strict";
// The owner's review console over memhub's JSON API: no build step, no framework. Every piece of text
// the hub returns is put in the page as text (textContent), never parsed as HTML: memories are
// written by agents, and a memory saying "<script>" must show as those words.

const state = { key: sessionStorage.getItem("memhub-key") || "", tab: "conflicts" };

function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on")) el.addEventListener(name.slice(2), value);
    else if (name === "class") el.className = value;
    else el.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat(Infinity)) {
    if (child !== null && child !== undefined && child !== false) el.append(child);
  }
  return el;
}

const q = encodeURIComponent;
const when = (iso) => (iso ? new Date(iso).toLocaleString() : "—");
const fields = (...pairs) => h("dl", {}, pairs.map(([name, value]) => [h("dt", {}, name), h("dd", {}, value ?? "—")]));

async function api(path, { method = "GET", body } = {}) {
  const headers = { Accept: "application/json" };
  if (state.key) headers.Authorization = `Bearer ${state.key}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await response.json().catch(() => null);
  if (!response.ok) {
    const detail = data && (typeof data.detail === "string" ? data.detail : data.message);
    const error = new Error(`${response.status}: ${detail || response.statusText}`);
    error.status = response.status;
    throw error;
  }
  return data;
}

// A decision: buttons off while it is sent, its answer (or why it was refused) said in `status`.
async function decide(card, status, send, done) {
  const buttons = card.querySelectorAll("button");
  buttons.forEach((b) => (b.disabled = true));
  try {
    await send();
    card.classList.add("decided");
    status.textContent = done;
    refreshCounts();
  } catch (error) {
    status.textContent = error.message;
    status.classList.add("error");
    buttons.forEach((b) => (b.disabled = false));
  }
}

// Conflicts and questions: both statements side by side, decided with one click.
async function conflictsView(main) {
  const { conflicts } = await api("/v1/conflicts?status=open&limit=200");
  const asked = new Map();
  for (const agent of new Set(conflicts.flatMap((c) => c.agents))) {
    const { questions } = await api(`/v1/questions?agent=${q(agent)}&limit=200`);
    for (const question of questions) {
      if (!asked.has(question.conflict_id)) asked.set(question.conflict_id, []);
      asked.get(question.conflict_id).push({ agent, ...question });
    }
  }
  main.append(h("h2", {}, `Open conflicts (${conflicts.length})`));
  if (!conflicts.length) main.append(h("p", { class: "empty" }, "Nothing waits for a decision."));
  for (const conflict of conflicts) main.append(conflictCard(conflict, asked.get(conflict.id) || []));
}

function conflictCard(c, questions) {
  const note = h("input", { type: "text", name: "note", placeholder: "A note (optional)", maxlength: "2000" });
  const status = h("p", { class: "status", role: "status" });
  const card = h("article", { class: "card conflict", "data-conflict": c.id });
  const side = (i) => {
    const proposed = c.proposal === c.memory_ids[i];
    return h("div", { class: proposed ? "side proposed" : "side" },
      h("div", { class: "side-head" }, h("span", { class: "num" }, String(i + 1)),
        proposed ? h("span", { class: "badge proposal" }, "the hub proposes this one") : null),
      h("blockquote", {}, c.statements[i]),
      fields(["agent", c.agents[i]], ["channel", c.channels[i]], ["source", c.sources[i]],
        ["memory", h("code", {}, c.memory_ids[i])]));
  };
  const keep = (which, label) => h("button", {
    type: "button", class: "primary",
    onclick: () => decide(card, status,
      () => api(`/v1/conflicts/${q(c.id)}/resolve`, { method: "POST", body: { keep: which, note: note.value || undefined } }),
      `Decided: ${label}.`),
  }, label);
  const where = [c.scope, c.project, c.person].filter(Boolean).join(" · ");
  card.append(
    h("div", { class: "card-head" },
      h("span", { class: `badge ${c.severity}` }, c.severity),
      questions.length ? h("span", { class: "badge" }, "question for the owner") : null,
      c.inferred ? h("span", { class: "badge" }, "reported change") : null,
      h("span", { class: "reason" }, c.reason),
      h("span", { class: "meta" }, `${where} · found ${when(c.created_at)} · ${c.id}`)),
    h("div", { class: "sides" }, side(0), side(1)),
    ...questions.map((asked) => h("p", { class: "question" },
      `Asked by ${asked.agent}${asked.ask_in ? ` in ${asked.ask_in}` : ""}: ${asked.question}`)),
    h("div", { class: "actions" }, note, keep(c.memory_ids[0], "Keep 1"), keep(c.memory_ids[1], "Keep 2"),
      keep("both", "Keep both")),
    status);
  return card;
}

// Promotion proposals, with the signals behind each.
async function promotionsView(main) {
  const { proposals } = await api("/v1/promotions?status=pending");
  main.append(h("h2", {}, `Promotion proposals (${proposals.length})`));
  if (!proposals.length) main.append(h("p", { class: "empty" }, "No proposal waits."));
  for (const proposal of proposals) main.append(proposalCard(proposal));
}

function proposalCard(p) {
  const note = h("input", { type: "text", name: "note", placeholder: "A note (optional)", maxlength: "2000" });
  const status = h("p", { class: "status", role: "status" });
  const card = h("article", { class: "card proposal", "data-proposal": p.id });
  const act = (verb, label, done) => h("button", {
    type: "button", class: verb === "approve" ? "primary" : "",
    onclick: () => decide(card, status,
      () => api(`/v1/promotions/${q(p.id)}/${verb}`, { method: "POST", body: { note: note.value || undefined } }), done),
  }, label);
  const where = [p.scope, p.project, p.person].filter(Boolean).join(" · ");
  card.append(
    h("div", { class: "card-head" },
      h("span", { class: "badge" }, `${p.from_tier} → ${p.to_tier}`),
      h("span", { class: "reason" }, p.reason),
      h("span", { class: "meta" }, `score ${p.score} · ${p.agent} · ${where} · ${p.id}`)),
    h("blockquote", {}, p.text),
    h("ul", { class: "signals" }, p.signals.map((s) =>
      h("li", {}, h("b", {}, s.name), h("span", { class: "strength" }, ` (${s.strength}, weight ${s.weight}): `), s.detail))),
    h("div", { class: "actions" }, note, act("approve", "Approve", `Approved: moved to ${p.to_tier}.`),
      act("reject", "Reject", "Rejected: it stays where it is.")),
    status);
  return card;
}

// Each agent's core block, as the agent loads it at the start of a session.
async function coreView(main) {
  const agents = new Set();
  const [{ conflicts }, { proposals }] = await Promise.all([api("/v1/conflicts?limit=200"), api("/v1/promotions")]);
  conflicts.forEach((c) => c.agents.forEach((a) => agents.add(a)));
  proposals.forEach((p) => agents.add(p.agent));
  const shown = h("div");
  const input = h("input", { type: "text", name: "agent", list: "agents", placeholder: "agent, e.g. wa-assistant", required: true });
  const load = async (event) => {
    event.preventDefault();
    shown.replaceChildren();
    try {
      const block = await api(`/v1/core?agent=${q(input.value)}`);
      shown.append(h("article", { class: "card" },
        h("div", { class: "card-head" }, h("span", { class: "reason" }, `${block.agent}'s core block`),
          h("span", { class: "meta" }, `${block.words} of ${block.budget.words} words · ${block.lines} of ${block.budget.lines} lines` +
            ` · ${block.left_out.length} left out · ${block.archived} archived · ${Object.keys(block.conflicts).length} disputed`)),
        h("pre", {}, block.markdown)));
    } catch (error) {
      shown.append(h("p", { class: "error" }, error.message));
    }
  };
  main.append(h("h2", {}, "Core blocks"),
    h("form", { class: "inline", onsubmit: load }, input,
      h("datalist", { id: "agents" }, [...agents].sort().map((a) => h("option", { value: a }))),
      h("button", { type: "submit", class: "primary" }, "Load")),
    shown);
}

// Any memory: search, read its history, forget it.
async function memoriesView(main) {
  const query = h("input", { type: "search", name: "query", placeholder: "Search every memory", required: true });
  const asker = h("input", { type: "text", name: "agent", value: "owner", title: "the agent asking: a key bound to an agent asks as it" });
  const results = h("div");
  const search = async (event) => {
    event.preventDefault();
    results.replaceChildren();
    try {
      const { hits } = await api("/v1/search", { method: "POST",
        body: { query: query.value, agent: asker.value, everywhere: true, include_superseded: true, limit: 20 } });
      if (!hits.length) results.append(h("p", { class: "empty" }, "No memory matches."));
      for (const hit of hits) results.append(memoryCard(hit));
    } catch (error) {
      results.append(h("p", { class: "error" }, error.message));
    }
  };
  main.append(h("h2", {}, "Memories"),
    h("form", { class: "inline", onsubmit: search }, query, h("label", {}, "as ", asker),
      h("button", { type: "submit", class: "primary" }, "Search")),
    results);
}

function memoryCard(hit) {
  const detail = h("div");
  const status = h("p", { class: "status", role: "status" });
  const card = h("article", { class: "card memory", "data-memory": hit.id });
  const open = async () => {
    detail.replaceChildren();
    try {
      const m = await api(`/v1/memories/${q(hit.id)}`);
      detail.append(
        fields(["kind", m.kind], ["scope", [m.scope, m.project, m.person].filter(Boolean).join(" · ")],
          ["state", m.state], ["tier", m.tier], ["confidence", m.confidence], ["occurred", when(m.occurred_at)],
          ["why", m.why], ["said", `${m.sightings.length} time(s)`]),
        h("table", {}, h("thead", {}, h("tr", {}, ["when", "what", "by", "changes", "note"].map((c) => h("th", {}, c)))),
          h("tbody", {}, m.history.map((change) => h("tr", {}, h("td", {}, when(change.at)), h("td", {}, change.action),
            h("td", {}, change.by), h("td", {}, Object.keys(change.changes).join(", ")), h("td", {}, change.note ?? ""))))));
    } catch (error) {
      detail.append(h("p", { class: "error" }, error.message));
    }
  };
  const forget = () => {
    if (!confirm(`Forget for good: "${hit.text}"?`)) return;
    decide(card, status, () => api(`/v1/memories/${q(hit.id)}?by=owner`, { method: "DELETE" }), "Forgotten.");
  };
  card.append(
    h("div", { class: "card-head" },
      h("span", { class: "badge" }, hit.tier), h("span", { class: "badge" }, hit.state), h("span", { class: "badge" }, hit.kind),
      h("span", { class: "meta" }, `${hit.agent}${hit.channel ? ` · ${hit.channel}` : ""}${hit.source ? ` · ${hit.source}` : ""} · ${hit.id}`)),
    h("blockquote", {}, hit.text),
    detail,
    h("div", { class: "actions" }, h("button", { type: "button", onclick: open }, "History"),
      h("button", { type: "button", class: "danger", onclick: forget }, "Forget")),
    status);
  return card;
}

// Dead letters, replayed one at a time.
async function deadLettersView(main) {
  const { dead_letters: letters } = await api("/v1/dlq?limit=200");
  main.append(h("h2", {}, `Dead letters (${letters.length})`));
  if (!letters.length) main.append(h("p", { class: "empty" }, "None."));
  for (const letter of letters) {
    const status = h("p", { class: "status", role: "status" });
    const card = h("article", { class: "card dead-letter", "data-event": letter.id });
    card.append(
      h("div", { class: "card-head" }, h("span", { class: "badge high" }, letter.status),
        h("span", { class: "reason" }, letter.error), h("span", { class: "meta" }, `${letter.id} · ${when(letter.at)}`)),
      h("details", {}, h("summary", {}, "The event as received"), h("pre", {}, letter.raw)),
      h("div", { class: "actions" }, h("button", {
        type: "button",
        onclick: () => decide(card, status, () => api(`/v1/dlq/replay?event_id=${q(letter.id)}`, { method: "POST" }),
          "Replayed: back on the stream."),
      }, "Replay")),
      status);
    main.append(card);
  }
}

const VIEWS = { conflicts: conflictsView, promotions: promotionsView, core: coreView, memories: memoriesView, "dead-letters": deadLettersView };

async function show(tab) {
  state.tab = tab;
  document.querySelectorAll("nav button").forEach((b) => b.dataset.tab === tab ? b.setAttribute("aria-current", "page") : b.removeAttribute("aria-current"));
  const main = document.getElementById("view");
  main.replaceChildren();
  try {
    await VIEWS[tab](main);
  } catch (error) {
    main.append(h("p", { class: "error" }, error.message));
  }
}

async function refreshCounts() {
  const counts = await Promise.all([
    api("/v1/conflicts?status=open&limit=1000").then((r) => r.conflicts.length),
    api("/v1/promotions?status=pending").then((r) => r.proposals.length),
    api("/v1/dlq?limit=10000").then((r) => r.dead_letters.length),
  ]).catch(() => null);
  if (!counts) return;
  ["conflicts", "promotions", "dead-letters"].forEach((name, i) => {
    document.querySelector(`[data-count="${name}"]`).textContent = counts[i] ? String(counts[i]) : "";
  });
}

function signIn(message) {
  const form = document.getElementById("sign-in");
  form.hidden = false;
  document.getElementById("tabs").hidden = true;
  document.getElementById("sign-out").hidden = true;
  document.getElementById("view").replaceChildren();
  form.querySelector(".error").textContent = message || "";
}

async function start() {
  try {
    await api("/v1/conflicts?status=open&limit=1"); // the owner's view: says whether this key may use the console
  } catch (error) {
    if (error.status === 401) return signIn(state.key ? "That key is unknown or revoked." : "");
    if (error.status === 403) return signIn("That key is limited to some scopes, projects or persons: sign in with the admin key or an owner-level key.");
    throw error;
  }
  document.getElementById("sign-in").hidden = true;
  document.getElementById("tabs").hidden = false;
  document.getElementById("sign-out").hidden = !state.key;
  refreshCounts();
  await show(state.tab);
}

document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("nav button").forEach((b) => b.addEventListener("click", () => show(b.dataset.tab)));
  document.getElementById("sign-in").addEventListener("submit", (event) => {
    event.preventDefault();
    state.key = event.target.elements.key.value.trim();
    sessionStorage.setItem("memhub-key", state.key);
    start();
  });
  document.getElementById("sign-out").addEventListener("click", () => {
    state.key = "";
    sessionStorage.removeItem("memhub-key");
    signIn("");
  });
  start().catch((error) => document.getElementById("view").append(h("p", { class: "error" }, error.message)));
});
