// ShardQ console: one page, plain JavaScript, no build step. Every refresh interval it reads
// /api/overview (the console's last stats round) and /api/history (the ring buffer of rates) and
// redraws the live part of the current view; forms (the message browser) are kept across redraws.
// Names and message contents are user data: they are only ever set as text, never as HTML.
"use strict";

const TOKEN = document.querySelector('meta[name="shardq-token"]').content;
const ADMIN = document.querySelector('meta[name="shardq-admin"]').content === "true";
const COLORS = ["#0b5ed7", "#d63384", "#198754", "#fd7e14", "#6f42c1", "#20c997", "#dc3545", "#6c757d"];

let overview = null;
let history = null;
let route = null; // {view, name, live: element, charts: {}}

// ------------------------------------------------------------------------------ DOM helpers

function h(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on")) e.addEventListener(k.substring(2), v);
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

function table(headers, rows) {
  return h("table", {}, h("thead", {}, h("tr", {}, headers.map((x) => h("th", {}, x)))), h("tbody", {}, rows));
}

/** A cell whose field a test (or a person) can find: data-field="backlog". */
function cell(field, value, num) {
  return h("td", { "data-field": field, class: num ? "num" : null }, value === null || value === undefined ? "-" : value);
}

const fmt = {
  count: (n) => (n === null || n === undefined ? "-" : Number(n).toLocaleString("en-US")),
  rate: (r) => (r === null || r === undefined ? "-" : r < 10 ? r.toFixed(1) + "/s" : Math.round(r).toLocaleString("en-US") + "/s"),
  age: (ms) => {
    if (ms === null || ms === undefined) return "-";
    if (ms < 1000) return ms + " ms";
    if (ms < 60000) return (ms / 1000).toFixed(1) + " s";
    if (ms < 3600000) return (ms / 60000).toFixed(1) + " min";
    return (ms / 3600000).toFixed(1) + " h";
  },
  bytes: (b) => {
    if (b === null || b === undefined) return "-";
    const units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let i = 0;
    while (b >= 1024 && i < units.length - 1) { b /= 1024; i++; }
    return (i === 0 ? b : b.toFixed(1)) + " " + units[i];
  },
  time: (ms) => new Date(ms).toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC"),
  onOff: (b) => (b ? "on" : h("span", { class: "off" }, "off")),
};

/** A queue's switches, in one cell: "enqueue on, dequeue off". */
function switches(q) {
  return h("span", {}, "enqueue ", fmt.onOff(q.enqueueEnabled), ", dequeue ", fmt.onOff(q.dequeueEnabled));
}

/** "3 (app-a 2, app-b 1)": a count and who holds it. */
function consumersText(total, by) {
  if (!total) return "0";
  return fmt.count(total) + " (" + by.map((c) => (c.subscription ? c.subscription + " on " : "") + c.instanceName + " " + c.consumers).join(", ") + ")";
}

function link(view, name) {
  return h("a", { href: "#/" + view + "/" + encodeURIComponent(name) }, name);
}

// --------------------------------------------------------------------------------- fetching

async function api(path, options) {
  const r = await fetch(path, options);
  const body = await r.json();
  if (!r.ok) throw new Error(body.error || r.status + " " + r.statusText);
  return body;
}

/** An admin action, after the person confirmed it: POST with this run's token. */
async function act(question, path, resultBox) {
  if (!window.confirm(question)) return;
  try {
    const r = await api(path, { method: "POST", headers: { "X-ShardQ-Token": TOKEN } });
    show(resultBox, r.message, false);
  } catch (e) {
    show(resultBox, e.message, true);
  }
  await refresh();
}

function show(box, text, error) {
  box.hidden = false;
  box.className = "result" + (error ? " error" : "");
  box.textContent = text;
}

async function refresh() {
  try {
    [overview, history] = await Promise.all([api("/api/overview"), api("/api/history")]);
    const c = overview.console;
    document.getElementById("status").textContent =
      c.database + " · sampled " + fmt.time(c.sampledAt) + " · every " + c.refreshMillis / 1000 + " s · admin " + (c.admin ? "on" : "off");
    banner(c.error ? "Last stats round failed (showing the one before): " + c.error : null, true);
    if (route && route.live) renderLive();
  } catch (e) {
    banner("The console does not answer: " + e.message, true);
  }
}

function banner(text, error) {
  const b = document.getElementById("banner");
  b.hidden = !text;
  b.className = "banner" + (error ? " error" : "");
  b.textContent = text || "";
}

// ---------------------------------------------------------------------------------- routing

function navigate() {
  // #/queue/NAME?selector=EXPR opens the queue's page with that browse done (a link to share)
  const [path, search] = location.hash.replace(/^#\/?/, "").split("?");
  const parts = path.split("/");
  const view = parts[0] || "destinations";
  const name = parts[1] ? decodeURIComponent(parts.slice(1).join("/")) : null;
  const main = document.getElementById("main");
  main.replaceChildren();
  for (const a of document.querySelectorAll("nav a")) {
    a.classList.toggle("active", a.dataset.nav === (view === "queue" || view === "topic" ? "destinations" : view));
  }
  route = { view, name, live: h("div", { id: "live" }), charts: {} };
  main.dataset.view = view;
  main.append(route.live);
  if (view === "topic") main.append(h("section", {}, sendForm("topics", name)));
  if (view === "queue") {
    main.append(queueTools(name));
    const params = new URLSearchParams(search || "");
    // the first messages are shown at once; #/queue/NAME?selector=EXPR shows those matching
    const form = document.getElementById("browse");
    if (params.has("selector")) form.selector.value = params.get("selector");
    form.requestSubmit();
  }
  if (overview) renderLive();
}

// A redraw replaces the live part: not while a person is pressing on it or has selected text in it.
let pressing = false;
document.addEventListener("mousedown", () => { pressing = true; });
document.addEventListener("mouseup", () => { pressing = false; });

function renderLive() {
  const selection = window.getSelection();
  if (pressing || (selection && !selection.isCollapsed && route.live.contains(selection.anchorNode))) return;
  const views = { destinations, queue, topic, instances, caches };
  const render = views[route.view] || destinations;
  const content = render(route.name);
  route.live.replaceChildren(...content.filter((x) => x));
}

// ------------------------------------------------------------------------------------ views

function destinations() {
  const queues = overview.queues;
  const topics = overview.topics;
  const queueRows = queues.map((q) =>
    h("tr", { "data-queue": q.name },
      h("td", {}, link("queue", q.name)),
      cell("shards", q.shardCount, true),
      cell("consumers", fmt.count(q.consumers), true),
      cell("backlog", fmt.count(q.backlog), true),
      cell("tableBytes", fmt.bytes(q.tableBytes), true),
      cell("enqueueRate", q.rates ? fmt.rate(q.rates.enqueuePerSecond) : "-", true),
      cell("dequeueRate", q.rates ? fmt.rate(q.rates.dequeuePerSecond) : "-", true),
      cell("oldest", fmt.age(q.oldestMessageAgeMillis), true),
      cell("enqueued", fmt.count(q.enqueued), true),
      cell("purged", fmt.count(q.purged), true),
      cell("switches", switches(q))));
  const topicRows = topics.map((t) =>
    h("tr", { "data-topic": t.name },
      h("td", {}, link("topic", t.name)),
      cell("shards", t.shardCount, true),
      cell("subscriptions", t.subscriptions.length, true),
      cell("consumers", fmt.count(t.consumers), true),
      cell("retained", fmt.count(t.retained), true),
      cell("tableBytes", fmt.bytes(t.tableBytes), true),
      cell("publishRate", t.rates ? fmt.rate(t.rates.publishPerSecond) : "-", true),
      cell("oldest", fmt.age(t.oldestRetainedAgeMillis), true),
      cell("published", fmt.count(t.published), true),
      cell("retirementHeldBy", t.retirementHeldBy.length === 0 ? "nobody" : h("span", { class: "held" }, t.retirementHeldBy.map((s) => s.name).join(", ")))));
  return [
    h("h1", {}, "Destinations"),
    charts(null),
    h("h2", {}, "Queues"),
    queues.length === 0 ? h("p", { class: "muted" }, "No queues yet.") :
      table(["Queue", "Shards", "Consumers", "Waiting", "Disk", "Enqueue/s", "Dequeue/s", "Oldest waiting", "Enqueued in all", "Purged in all", "Switches"], queueRows),
    h("h2", {}, "Topics"),
    topics.length === 0 ? h("p", { class: "muted" }, "No topics yet.") :
      table(["Topic", "Shards", "Subscriptions", "Consumers", "Retained", "Disk", "Publish/s", "Oldest retained", "Published in all", "Retirement held by"], topicRows),
    h("p", { class: "note" }, "Rates are the difference of the console's last two stats rounds; a purge counts as purged, not as dequeued. " +
      "Waiting counts messages due and not yet consumed (delayed ones are not in it). Consumers are open consumers on the live instances, " +
      "as the database counts them (a queue's within a heartbeat of a change). Disk is the size of the destination's tables and indexes."),
  ];
}

function queue(name) {
  const q = overview.queues.find((x) => x.name === name);
  if (!q) return [h("h1", {}, "Queue " + name), h("p", { class: "muted" }, "No such queue in the last stats round (dropped, or not created yet).")];
  const shardRows = q.shards.map((s) =>
    h("tr", { "data-shard": s.shard }, cell("shard", s.shard, true), cell("nextSeq", fmt.count(s.nextSeq), true),
      cell("cursor", fmt.count(s.cursor), true), cell("backlog", fmt.count(s.backlog), true),
      cell("leaseHolder", s.leaseInstance ? s.leaseInstance + " " + (s.leaseHolder || "") : "-")));
  return [
    h("h1", {}, "Queue ", h("span", { class: "mono" }, q.name)),
    h("dl", { class: "settings", "data-queue": q.name },
      h("dt", {}, "waiting"), h("dd", { "data-field": "backlog" }, fmt.count(q.backlog)),
      h("dt", {}, "consumers"), h("dd", { "data-field": "consumers" }, consumersText(q.consumers, q.consumersByInstance)),
      h("dt", {}, "enqueue / dequeue / purge rate"), h("dd", { "data-field": "rates" }, q.rates ? fmt.rate(q.rates.enqueuePerSecond) + " / " + fmt.rate(q.rates.dequeuePerSecond) + " / " + fmt.rate(q.rates.purgedPerSecond) : "-"),
      h("dt", {}, "purged"), h("dd", { "data-field": "purged" }, q.purges ? fmt.count(q.purged) + " messages in " + fmt.count(q.purges) + " purge" + (q.purges === 1 ? "" : "s") + ", the last at " + fmt.time(q.lastPurgeAt) : "never"),
      h("dt", {}, "oldest waiting"), h("dd", {}, fmt.age(q.oldestMessageAgeMillis)),
      h("dt", {}, "delayed (not due)"), h("dd", {}, fmt.count(q.scheduled)),
      h("dt", {}, "enqueued since creation"), h("dd", {}, fmt.count(q.enqueued)),
      h("dt", {}, "switches"), h("dd", { "data-field": "switches" }, switches(q)),
      h("dt", {}, "settings"), h("dd", {}, q.shardCount + " shards, slices of " + q.sliceSize + ", " + q.maxAttempts + " delivery attempts, dead letters to " + q.deadLetterQueue),
      h("dt", {}, "slices"), h("dd", {}, q.slicesInUse + " in use, " + q.slicesFree + " free"),
      h("dt", {}, "disk"), h("dd", { "data-field": "tableBytes" }, fmt.bytes(q.tableBytes) + " (tables and indexes), " + fmt.count(q.deadTuples) + " dead tuples")),
    charts(name),
    h("h2", {}, "Shards"),
    table(["Shard", "Next seq", "Cursor", "Waiting", "Lease holder"], shardRows),
  ];
}

/** The parts of a queue's page that stay across refreshes: admin actions and the message browser. */
function queueTools(name) {
  const result = h("div", { class: "result", id: "action-result", hidden: true });
  const enc = encodeURIComponent(name);
  const base = "/api/queues/" + enc;
  const button = (label, question, path, danger) =>
    h("button", { class: danger ? "danger" : null, "data-action": label, disabled: !ADMIN,
      onclick: async () => {
        await act(question, base + path, result);
        // the message list below was read before the action: read it again (a purge showed purged messages)
        if (summary.textContent) form.requestSubmit();
      } }, label);
  const actions = h("div", { class: "actions" },
    button("Purge", "Purge queue " + name + "? Every waiting message is discarded.", "/purge", true),
    button("Stop enqueue", "Stop sending to " + name + "? Producers get an error until it is started.", "/stop?which=enqueue", true),
    button("Stop dequeue", "Stop receiving from " + name + "? Consumers wait until it is started.", "/stop?which=dequeue", true),
    button("Start both", "Start sending to and receiving from " + name + "?", "/start?which=both", false),
    button("Requeue dead letters", "Move the dead letters of " + name + " back to it?", "/requeue", false));
  const rows = h("tbody", {});
  const viewer = h("section", { id: "message-view", hidden: true });
  const summary = h("p", { class: "muted", id: "browse-summary" });
  const form = h("form", { class: "browse", id: "browse" },
    h("input", { name: "selector", placeholder: "JMS selector, e.g. JMSPriority > 4 AND region = 'eu'" }),
    h("input", { name: "limit", value: "20", type: "number", min: "1", max: "500" }),
    h("button", { type: "submit" }, "Browse"));
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const params = new URLSearchParams({ selector: form.selector.value, limit: form.limit.value });
    try {
      const messages = await api(base + "/messages?" + params);
      const open = viewer.dataset.message;
      rows.replaceChildren(...messages.map((m) =>
        h("tr", { "data-message": m.message.messageId },
          cell("shard", m.shard, true), cell("seq", m.seq, true), cell("enqueuedAt", fmt.time(m.enqueuedAt)),
          h("td", { "data-field": "messageId" }, h("a", { href: "#", "data-open": m.message.messageId,
            onclick: (ev) => { ev.preventDefault(); showMessage(viewer, m); } }, m.message.messageId)),
          cell("body", preview(m.message)), cell("properties", properties(m.message.properties)))));
      // the message shown stays shown while it waits; one consumed or purged meanwhile goes
      const still = messages.find((m) => m.message.messageId === open);
      if (still) showMessage(viewer, still);
      else { viewer.hidden = true; viewer.replaceChildren(); delete viewer.dataset.message; }
      summary.className = "muted";
      summary.textContent = messages.length + " shown, oldest first" + (form.selector.value ? ", matching the selector" : "");
    } catch (e) {
      rows.replaceChildren();
      viewer.hidden = true;
      summary.className = "result error";
      summary.textContent = e.message;
    }
  });
  return h("section", {},
    h("h2", {}, "Admin actions"),
    ADMIN ? null : h("p", { class: "note" }, "Off: start the console with --admin to purge, stop, start or requeue dead letters (and to send)."),
    actions, result,
    h("h2", {}, "Messages"),
    h("p", { class: "note" }, "Waiting messages, without consuming them (shardq queue browse). A selector looks at up to 10,000 waiting messages. Open a message by its id. The list is read again after each admin action and each send."),
    form, summary,
    h("table", { id: "messages" },
      h("thead", {}, h("tr", {}, ["Shard", "Seq", "Enqueued", "Message id", "Body", "Properties"].map((x) => h("th", {}, x)))),
      rows),
    viewer,
    sendForm("queues", name, () => { if (summary.textContent) form.requestSubmit(); }));
}

/** Bytes of a body as MessageJson has it: UTF-8 of a text, else the base64's decoded length. */
function bodySize(m) {
  if (m.bodyBytes !== undefined) return m.bodyBytes;
  if (m.bodyType === "TEXT" && m.body !== undefined) return m.body === null ? 0 : new TextEncoder().encode(m.body).length;
  const b64 = m.body !== undefined ? m.body : m.bodyBase64;
  if (!b64) return 0;
  return Math.floor(b64.length * 3 / 4) - (b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0);
}

/** The hex dump of the start of a base64 body: 16 bytes a line. */
function hexDump(b64) {
  const bin = atob(b64 || "");
  const lines = [];
  for (let i = 0; i < bin.length; i += 16) {
    const chunk = bin.substring(i, i + 16);
    const hex = Array.from(chunk, (c) => c.charCodeAt(0).toString(16).padStart(2, "0")).join(" ");
    const ascii = Array.from(chunk, (c) => (c.charCodeAt(0) >= 32 && c.charCodeAt(0) < 127 ? c : ".")).join("");
    lines.push(i.toString(16).padStart(8, "0") + "  " + hex.padEnd(48) + "  " + ascii);
  }
  return lines.join("\n");
}

/** One message: its headers, its properties with their types, its body up to the console's limit. */
function showMessage(viewer, b) {
  const m = b.message;
  const limit = overview ? overview.console.bodyViewLimit : 65536;
  const size = bodySize(m);
  const kv = (k, v, field) => [h("dt", {}, k), h("dd", { "data-field": field }, v === null || v === undefined || v === "" ? "-" : String(v))];
  const headers = h("dl", { class: "settings", id: "message-headers" },
    kv("JMSMessageID", m.messageId, "messageId"),
    kv("JMSTimestamp", m.timestamp ? fmt.time(m.timestamp) : "-", "timestamp"),
    kv("JMSCorrelationID", m.correlationId, "correlationId"),
    kv("JMSType", m.type, "type"),
    kv("JMSReplyTo", m.replyTo, "replyTo"),
    kv("JMSPriority", m.priority, "priority"),
    kv("JMSDeliveryMode", m.persistent ? "persistent" : "non-persistent", "persistent"),
    kv("JMSExpiration", m.expiration ? fmt.time(m.expiration) : "never", "expiration"),
    kv("JMSDeliveryTime", m.deliverAt ? fmt.time(m.deliverAt) : "at once", "deliverAt"),
    kv("shard / seq", b.shard + " / " + b.seq, "position"),
    kv("enqueued", fmt.time(b.enqueuedAt), "enqueuedAt"));
  const props = Object.entries(m.properties || {});
  const propTable = props.length === 0 ? h("p", { class: "muted" }, "No properties.") :
    table(["Property", "Type", "Value"], props.map(([k, v]) =>
      h("tr", { "data-property": k }, cell("name", k), cell("type", v.type), cell("value", String(v.value)))));
  let body;
  let sizeNote;
  if (m.bodyStreamed !== undefined) {
    sizeNote = m.bodyType.toLowerCase() + " body, streamed, " + fmt.bytes(m.bodyStreamed) + ": not shown (the console shows bodies up to " + fmt.bytes(limit) + " that are stored inline)";
    body = null;
  } else {
    const cut = m.bodyTruncated === true;
    sizeNote = m.bodyType.toLowerCase() + " body, " + fmt.count(size) + " bytes; " +
      (cut ? "the first " + fmt.bytes(limit) + " shown (the console's limit)" : "shown whole (the console shows up to " + fmt.bytes(limit) + ")");
    const text = m.bodyType === "TEXT" && m.body !== undefined;
    body = h("pre", { class: "body", id: "message-body" }, text ? (m.body === null ? "(null text)" : m.body) : hexDump(m.body !== undefined ? m.body : m.bodyBase64));
  }
  viewer.dataset.message = m.messageId;
  viewer.hidden = false;
  viewer.replaceChildren(
    h("h2", {}, "Message ", h("span", { class: "mono" }, m.messageId),
      h("button", { type: "button", class: "close", onclick: () => { viewer.hidden = true; delete viewer.dataset.message; } }, "Close")),
    h("h3", {}, "Headers"), headers,
    h("h3", {}, "Properties"), propTable,
    h("h3", {}, "Body"), h("p", { class: "note", id: "body-size" }, sizeNote), body);
  viewer.scrollIntoView({ block: "nearest" });
}

/**
 * The send form (admin mode): a text message with JMS headers and properties, posted as one line
 * of queue load's format. Properties are a JSON object; each value keeps a JSON type (string,
 * whole number: int or long, other number: double, true/false: boolean).
 */
function sendForm(kind, name, after) {
  const result = h("div", { class: "result", id: "send-result", hidden: true });
  const form = h("form", { class: "send", id: "send" },
    h("label", {}, "Body (text)", h("textarea", { name: "body", rows: "4", disabled: !ADMIN })),
    h("label", {}, "Properties (JSON object)", h("textarea", { name: "properties", rows: "2", placeholder: '{"region": "eu", "n": 5}', disabled: !ADMIN })),
    h("div", { class: "row" },
      h("label", {}, "JMSCorrelationID ", h("input", { name: "correlationId", disabled: !ADMIN })),
      h("label", {}, "JMSType ", h("input", { name: "type", disabled: !ADMIN })),
      h("label", {}, "JMSPriority ", h("input", { name: "priority", type: "number", min: "0", max: "9", value: "4", disabled: !ADMIN })),
      h("label", {}, h("input", { name: "persistent", type: "checkbox", checked: true, disabled: !ADMIN }), " persistent")),
    h("button", { type: "submit", disabled: !ADMIN }, "Send"));
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    let props = {};
    try {
      const text = form.properties.value.trim();
      const parsed = text ? JSON.parse(text) : {};
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("expected a JSON object");
      for (const [k, v] of Object.entries(parsed)) {
        if (typeof v === "string") props[k] = { type: "string", value: v };
        else if (typeof v === "boolean") props[k] = { type: "boolean", value: v };
        else if (typeof v === "number" && Number.isInteger(v)) props[k] = { type: Math.abs(v) <= 2147483647 ? "int" : "long", value: v };
        else if (typeof v === "number") props[k] = { type: "double", value: v };
        else throw new Error("property " + k + " is " + JSON.stringify(v) + ": expected a string, number or true/false");
      }
    } catch (e) {
      show(result, "Properties: " + e.message, true);
      return;
    }
    const message = { bodyType: "TEXT", body: form.body.value, properties: props,
      priority: Number(form.priority.value), persistent: form.persistent.checked };
    if (form.correlationId.value) message.correlationId = form.correlationId.value;
    if (form.type.value) message.type = form.type.value;
    try {
      const r = await api("/api/" + kind + "/" + encodeURIComponent(name) + "/send",
        { method: "POST", headers: { "X-ShardQ-Token": TOKEN, "Content-Type": "application/json" }, body: JSON.stringify(message) });
      show(result, r.message, false);
    } catch (e) {
      show(result, e.message, true);
    }
    await refresh();
    if (after) after();
  });
  return h("div", {},
    h("h2", {}, "Send a message"),
    ADMIN ? h("p", { class: "note" }, "A text message, committed at once. Properties keep their JSON type (whole numbers are int or long, others double), so selectors compare them as numbers. Larger or other messages: shardq queue load.")
      : h("p", { class: "note" }, "Off: start the console with --admin to send messages."),
    form, result);
}

function preview(m) {
  if (m.bodyStreamed !== undefined) return m.bodyType.toLowerCase() + ", streamed";
  if (m.bodyType === "TEXT") return m.body === null ? "null" : '"' + (m.body.length > 80 ? m.body.substring(0, 79) + "…" : m.body) + '"';
  return m.bodyType.toLowerCase() + ", " + fmt.count(bodySize(m)) + " bytes";
}

function properties(p) {
  const parts = Object.entries(p || {}).map(([k, v]) => k + "=" + (v.type === "string" ? "'" + v.value + "'" : v.value));
  return parts.length === 0 ? "-" : parts.join(", ");
}

function topic(name) {
  const t = overview.topics.find((x) => x.name === name);
  if (!t) return [h("h1", {}, "Topic " + name), h("p", { class: "muted" }, "No such topic in the last stats round.")];
  const subRows = t.subscriptions.map((s) =>
    h("tr", { "data-subscription": s.name },
      cell("name", s.name), cell("clientId", s.clientId), cell("kind", s.kind + (s.noLocal ? ", noLocal" : "")),
      cell("selector", s.selector), cell("consumers", s.consumers, true), cell("lag", fmt.count(s.lag), true),
      cell("oldest", fmt.age(s.oldestAgeMillis), true),
      cell("retirement", s.holdsRetirement ? h("span", { class: "held" }, "held") : "-"),
      cell("expired", s.expired ? fmt.count(s.expired) : "-", true)));
  const shardRows = t.shards.map((s) =>
    h("tr", {}, cell("shard", s.shard, true), cell("nextSeq", fmt.count(s.nextSeq), true),
      cell("slowestCursor", fmt.count(s.slowestCursor), true),
      cell("slowestSubscription", s.retained > 0 ? s.slowestSubscription : "-"),
      cell("retained", fmt.count(s.retained), true), cell("slices", s.slicesInUse, true)));
  return [
    h("h1", {}, "Topic ", h("span", { class: "mono" }, t.name)),
    h("dl", { class: "settings" },
      h("dt", {}, "published"), h("dd", {}, fmt.count(t.published) + " since creation"),
      h("dt", {}, "consumers"), h("dd", { "data-field": "consumers" }, consumersText(t.consumers, t.consumersByInstance)),
      h("dt", {}, "publish rate"), h("dd", {}, t.rates ? fmt.rate(t.rates.publishPerSecond) : "-"),
      h("dt", {}, "retained"), h("dd", {}, fmt.count(t.retained) + " not yet passed by every subscription"),
      h("dt", {}, "retirement"), h("dd", {}, t.retirementHeldBy.length === 0 ? "not held" :
        h("span", { class: "held" }, "held by " + t.retirementHeldBy.map((s) => s.name + " (lag " + fmt.count(s.lag) + ")").join(", "))),
      h("dt", {}, "expiry policy"), h("dd", {}, (t.maxLag === null ? "no max lag" : "max lag " + fmt.count(t.maxLag)) + ", " + (t.maxAgeSeconds === null ? "no max age" : "max age " + t.maxAgeSeconds + " s")),
      h("dt", {}, "disk"), h("dd", { "data-field": "tableBytes" }, fmt.bytes(t.tableBytes) + " (tables and indexes)")),
    charts(name, true),
    h("h2", {}, "Subscriptions"),
    table(["Subscription", "Client id", "Kind", "Selector", "Consumers", "Lag", "Oldest", "Retirement", "Expired"], subRows),
    h("p", { class: "note" }, "Lag counts the messages published after the subscription's cursor (an upper bound: it includes those its selector leaves out). Retirement 'held': a slice every other subscription has passed waits for this one."),
    h("h2", {}, "Shards"),
    table(["Shard", "Next seq", "Slowest cursor", "Slowest subscription", "Retained", "Slices"], shardRows),
  ];
}

function instances() {
  const rows = overview.instances.map((i) =>
    h("tr", { "data-instance": i.id },
      cell("id", i.id, true), cell("name", i.name), cell("started", fmt.time(i.startedAt)),
      cell("heartbeat", fmt.age(i.heartbeatAgeMillis) + " ago", true), cell("shardsOwned", i.shardsOwned, true),
      cell("consumers", fmt.count(i.consumers), true),
      cell("leasesHeld", i.leasesHeld, true),
      cell("leases", i.leases.length === 0 ? "-" : i.leases.map((l) => l.destination + (l.subscription ? " / " + l.subscription : "") + " #" + l.shard).join(", "))));
  return [
    h("h1", {}, "Instances"),
    h("p", { class: "note" }, "Applications, CLI commands and this console register an instance and heartbeat every second; shown here are those heard from in the last 30 s. Shards owned are for enqueue; leases are the dequeue leases each holds on a shard's cursor."),
    table(["Id", "Name", "Started", "Last heartbeat", "Shards owned", "Consumers", "Leases held", "Leases (destination / subscription #shard)"], rows),
    h("p", { class: "note" }, "Names: shardq.instance.name, or else the application's name (spring.application.name in Spring Boot) or main class, with its process id and host."),
  ];
}

function caches() {
  const rows = overview.caches.map((c) =>
    h("tr", { "data-cache": c.name },
      cell("name", c.name), cell("storage", c.durable ? "durable" : "unlogged"), cell("entries", fmt.count(c.entries), true),
      cell("bytes", fmt.bytes(c.bytes), true), cell("diskBytes", fmt.bytes(c.diskBytes), true),
      cell("maxEntries", c.maxEntries === null ? "unbounded" : fmt.count(c.maxEntries), true),
      cell("evictions", fmt.count(c.evictions), true), cell("expirations", fmt.count(c.expirations), true),
      cell("hitRatio", c.hitRatio === null ? "n/a" : (c.hitRatio * 100).toFixed(1) + " %", true)));
  return [
    h("h1", {}, "Key/value caches"),
    overview.caches.length === 0 ? h("p", { class: "muted" }, "No caches yet.") :
      table(["Cache", "Storage", "Entries", "Data", "Disk", "Max entries", "Evictions", "Expirations", "Hit ratio"], rows),
    h("p", { class: "note", id: "hit-ratio-note" },
      "Hit ratio: not available here. Hits, misses and loads are counted in memory by each application instance " +
      "(KvCache.stats(); the demo's live view shows its own); the database keeps no cluster-wide count, so the console " +
      "has none to show. Entries, data, disk, evictions and expirations are exact, read from the database."),
  ];
}

// ----------------------------------------------------------------------------------- charts

/** Rate and backlog charts: all destinations (name null) or one. */
function charts(name, isTopic) {
  if (!window.uPlot || !history || history.samples.length < 2) return h("p", { class: "muted" }, "Charts appear after two stats rounds.");
  const box = route.charts.box || (route.charts.box = h("div", { class: "charts" }));
  const samples = history.samples;
  const xs = samples.map((s) => s.at / 1000);
  const series = [];
  if (name === null) {
    const queues = Object.keys(samples[samples.length - 1].queues);
    const topics = Object.keys(samples[samples.length - 1].topics);
    series.push(["Enqueue rate (messages/s)", queues.map((q) => [q, samples.map((s) => (s.queues[q] ? s.queues[q].enqueuePerSecond : null))])]);
    series.push(["Dequeue rate (messages/s)", queues.map((q) => [q, samples.map((s) => (s.queues[q] ? s.queues[q].dequeuePerSecond : null))])]);
    series.push(["Backlog (messages)", queues.map((q) => [q, samples.map((s) => (s.queues[q] ? s.queues[q].backlog : null))])]);
    if (topics.length) series.push(["Publish rate (messages/s)", topics.map((t) => [t, samples.map((s) => (s.topics[t] ? s.topics[t].publishPerSecond : null))])]);
  } else if (isTopic) {
    series.push(["Publish rate (messages/s)", [[name, samples.map((s) => (s.topics[name] ? s.topics[name].publishPerSecond : null))]]]);
    series.push(["Retained (messages)", [[name, samples.map((s) => (s.topics[name] ? s.topics[name].retained : null))]]]);
  } else {
    const pick = (f) => samples.map((s) => (s.queues[name] ? s.queues[name][f] : null));
    series.push(["Rates (messages/s)", [["enqueue", pick("enqueuePerSecond")], ["dequeue", pick("dequeuePerSecond")], ["purged", pick("purgedPerSecond")]]]);
    series.push(["Backlog (messages)", [["backlog", pick("backlog")]]]);
  }
  for (const [title, lines] of series) {
    const key = title + "|" + lines.map((l) => l[0]).join(",");
    let c = route.charts[title];
    if (!c || c.key !== key) {
      if (c) c.plot.destroy(), c.el.remove();
      const el = h("div", { class: "chart", "data-chart": title }, h("div", { class: "title" }, title));
      const plot = new uPlot({
        width: 460, height: 200,
        series: [{}, ...lines.map(([label], i) => ({ label, stroke: COLORS[i % COLORS.length], width: 1.5 }))],
        axes: [{}, { size: 60 }],
        scales: { x: { time: true } },
        legend: { show: true },
      }, [xs, ...lines.map((l) => l[1])], el);
      c = route.charts[title] = { key, plot, el };
      box.append(el);
    } else {
      c.plot.setData([xs, ...lines.map((l) => l[1])]);
    }
  }
  return box;
}

window.addEventListener("hashchange", navigate);
navigate();
refresh().then(() => setInterval(refresh, overview ? overview.console.refreshMillis : 2000));
