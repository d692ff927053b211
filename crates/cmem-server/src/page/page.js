// The page of cmem's server: lookups, concordance search, imports and edits over the /v1
// API. Every text from the memory is put in the page as text (never as markup).
"use strict";

const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  for (const c of children) if (c !== null && c !== undefined) node.append(c instanceof Node ? c : String(c));
  return node;
}

// A read the server refuses without a token (`--read-needs-token`) is sent again with
// the token of Write access, when there is one.
let readsNeedToken = false;

async function api(path, options = {}) {
  const token = $("write-token").value.trim();
  const withToken = () => ({ ...options, headers: { ...options.headers, Authorization: `Bearer ${token}` } });
  // Once reads are known to need it, the token goes with the first request.
  const bare = !token || options.headers?.Authorization || !readsNeedToken;
  let response = await fetch(path, bare ? options : withToken());
  if (response.status === 401 && token && !options.headers?.Authorization && !readsNeedToken) {
    readsNeedToken = true;
    response = await fetch(path, withToken());
  }
  const body = response.headers.get("content-type")?.includes("json") ? await response.json() : null;
  if (!response.ok) throw new Error(body?.message || `${response.status} ${response.statusText}`);
  return body;
}

function showError(target, error) {
  target.replaceChildren(el("p", { class: "error", role: "alert" }, error.message));
}

// Choices remembered across visits (locales, how codes are copied); the write token only
// for this tab (sessionStorage), never in a URL.
const remember = (key, value) => { try { localStorage.setItem(`cmem.${key}`, value); } catch { /* private mode */ } };
const recall = (key) => { try { return localStorage.getItem(`cmem.${key}`); } catch { return null; } };
function writeToken() {
  const token = $("write-token").value.trim();
  if (!token) {
    $("write-token").focus();
    throw new Error("Enter a write token first (under Write access).");
  }
  return token;
}
const writeHeaders = () => ({ Authorization: `Bearer ${writeToken()}`, "Content-Type": "application/json" });

// ---- Codes: a run sequence as text, in the notation the translator chose.

const ENTITY = /^[A-Z][A-Z0-9_]*$/;
const escapeNotation = (t) => t.replace(/[\\{}[\]]/g, (c) => `\\${c}`);

// "markup": codes as in the file (<b>); "numbered": {1}…{/1}, {2/}, [3], {PERSON:John};
// "none": text only. A choice (plural, select) has no short form: the text as stored.
function runsText(runs, mode, surface) {
  if (mode === "markup" || runs.some((r) => r.plural || r.select)) return surface;
  let out = "";
  for (const r of runs) {
    if (typeof r.text === "string") out += mode === "numbered" ? escapeNotation(r.text) : r.text;
    else if (mode === "none") continue;
    else if (r.pc_open) out += `{${r.pc_open.id}}`;
    else if (r.pc_close) out += `{/${r.pc_close.id}}`;
    else if (r.ph) out += ENTITY.test(r.ph.type || "") ? `{${r.ph.type}:${escapeNotation(r.ph.equiv || "")}}` : `{${r.ph.id}/}`;
    else if (r.sub) out += `[${r.sub.id}]`;
  }
  return out;
}

const hasCodes = (runs) => runs.some((r) => typeof r.text !== "string");

// The runs of `text` written in the numbered notation against `stored`: each code is
// the stored one of that id, so its type and data survive an edit.
function parseNumbered(text, stored) {
  const find = (kind, id) => stored.find((r) => r[kind] && r[kind].id === id);
  const runs = [];
  let buffer = "";
  const flush = () => { if (buffer) runs.push({ text: buffer }); buffer = ""; };
  const token = /\\([\\{}[\]])|\{(\/?)([A-Za-z0-9_.-]+)(\/?)\}|\{([A-Z][A-Z0-9_]*):((?:\\.|[^}\\])*)\}|\[([A-Za-z0-9_.-]+)\]|([{}[\]])/g;
  let last = 0, m;
  while ((m = token.exec(text))) {
    buffer += text.slice(last, m.index);
    last = token.lastIndex;
    if (m[1]) { buffer += m[1]; continue; }
    if (m[8]) throw new Error(`"${m[8]}" at character ${m.index + 1} is not a code; write \\${m[8]} for the character itself`);
    flush();
    let run;
    if (m[3]) {
      const kind = m[2] ? "pc_close" : m[4] ? "ph" : "pc_open";
      run = find(kind, m[3]);
      if (!run) throw new Error(`code ${m[0]} at character ${m.index + 1} is not one of this translation's`);
    } else if (m[5]) {
      const value = m[6].replace(/\\(.)/g, "$1");
      const like = stored.find((r) => r.ph && r.ph.type === m[5]);
      if (!like) throw new Error(`${m[0]} at character ${m.index + 1}: this translation has no ${m[5]}`);
      run = { ph: { ...like.ph, equiv: value } };
    } else {
      run = find("sub", m[7]);
      if (!run) throw new Error(`[${m[7]}] at character ${m.index + 1} is not one of this translation's`);
    }
    runs.push(run);
  }
  buffer += text.slice(last);
  flush();
  return runs;
}

// ---- Words a translator understands.

function label(m) {
  if (m.percent > 100 || /context/.test(m.match_type)) return ["Context match", "exact"];
  if (m.match_type === "plain_exact") return ["Exact, other tags", "exact"];
  if (m.tier <= 2) return ["Exact", "exact"];
  return [`Fuzzy ${Math.floor(m.percent)} %`, "fuzzy"];
}

// What lowered a match's score, as the translator reads it.
const PENALTIES = {
  whitespace: () => "Differs from your text in spaces only",
  region: (m) => `Written for another region (${m.source.locale} → ${m.target.locale})`,
  project: (m) => `From another project${m.project_id ? ` (${m.project_id})` : ""}`,
  client: () => "Written for another client",
  origin: () => "Of an origin that counts less (such as machine translation)",
  status: () => "Not reviewed, or not approved",
  file: () => "From a file that counts less",
};

const REPAIRS = { number: "numbers", punctuation: "punctuation", whitespace: "spaces", mnemonic: "access keys" };
const repairName = (kind) => REPAIRS[kind] || "words";

// What a word repair's replacement rests on, as the translator reads it.
function evidence(w) {
  const e = w.evidence;
  if (!e) return "no evidence";
  if (e.by === "copied") return "written as your text writes it, as the translation had copied the old words";
  if (e.by === "deleted") return "removed, as your text dropped the words";
  if (e.by === "compound") return `compound word rebuilt around ${JSON.stringify(e.kept)}, the new part from a phrase pair seen ${e.count}× in the memory`;
  const agreed = e.context ? `, agreeing with ${e.context === 1 ? "a neighbouring word" : "the words on both sides"}` : "";
  return `phrase pair seen ${e.count}× in the memory${agreed}`;
}

// The word repairs applied: "Datei" → "Ordner" (phrase pair seen 3× in the memory).
const wordRepairs = (m) => (m.repairs || []).filter((r) => r.applied && r.words)
  .map((r) => `${JSON.stringify(r.words.target_from)} → ${JSON.stringify(r.words.target_to)} (${evidence(r.words)})`);

function notes(m) {
  const out = [];
  for (const a of m.entity_adaptations || []) {
    if (!a.applied) out.push(`${a.entity_type} ${a.from} → ${a.to} not changed: the translation does not hold it`);
  }
  const unplaced = (m.code_adaptations || []).filter((a) => !a.applied && a.to).map((a) => a.to.data || `{${a.to.id}}`);
  if (unplaced.length) out.push(`Codes of your text that could not be placed in the translation: ${unplaced.join(" ")} — add them by hand`);
  if ((m.code_adaptations || []).some((a) => !a.applied && !a.to)) out.push("The translation keeps a placeholder your text does not have");
  for (const r of m.repairs || []) {
    if (!r.applied) {
      const why = r.words ? "the memory has no evidence for it" : "the translation has nothing to change";
      out.push(`Not repaired (${repairName(r.kind)} ${JSON.stringify(r.from)} → ${JSON.stringify(r.to)}): ${why}`);
    }
  }
  for (const p of m.penalties || []) out.push(`${PENALTIES[p.kind]?.(m) ?? `Lowered for its ${p.kind}`} (−${p.points} %)`);
  return out;
}

// The CLI's direction: the stored source, with what only it has struck and what only the
// query has underlined.
function sourceDiff(m) {
  if (m.identical_source || !m.diff?.length) return el("span", {}, m.source.text);
  // What a repair carried into the translation is marked as such.
  const repaired = (m.repairs || []).filter((r) => r.applied && r.to.trim()).map((r) => r.to.trim());
  const out = el("span", { class: "diff" });
  for (const op of m.diff) {
    if (op.op === "delete") out.append(el("del", { title: "only in the memory" }, op.text));
    else if (op.op === "insert" && repaired.some((t) => op.text.includes(t))) {
      out.append(el("ins", { class: "repaired", title: "only in your text; repaired in the translation" }, op.text));
    } else if (op.op === "insert") out.append(el("ins", { title: "only in your text" }, op.text));
    else out.append(op.text);
  }
  return out;
}

// The adapted target with what adaptation and repair changed in the stored one marked; a
// word put in by a word repair says what it replaced and on what evidence.
function marked(from, to, m) {
  const words = (m?.repairs || []).filter((r) => r.applied && r.words?.target_to.trim());
  const why = (word) => {
    const r = words.find((r) => r.words.target_to.split(/\s+/).includes(word));
    return r ? `repaired from the memory: ${JSON.stringify(r.words.target_from)} → ${JSON.stringify(r.words.target_to)}, ${evidence(r.words)}`
      : "changed for your text";
  };
  const a = from.split(/(\s+)/), b = to.split(/(\s+)/);
  if (a.length * b.length > 250000) return el("span", {}, to);
  const n = a.length, k = b.length;
  const lcs = Array.from({ length: n + 1 }, () => new Array(k + 1).fill(0));
  for (let i = n - 1; i >= 0; i--)
    for (let j = k - 1; j >= 0; j--)
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const out = el("span", {});
  let i = 0, j = 0;
  while (j < k) {
    if (i < n && a[i] === b[j]) { out.append(b[j]); i++; j++; }
    else if (i < n && lcs[i + 1][j] >= lcs[i][j + 1]) i++;
    else { out.append(el("ins", { class: "repaired", title: why(b[j]) }, b[j])); j++; }
  }
  return out;
}

// ---- Lookup.

let matches = [];

async function lookup() {
  const results = $("lookup-results");
  const text = $("lookup-text").value, from = $("lookup-from").value, to = $("lookup-to").value;
  const threshold = $("lookup-threshold").value;
  results.replaceChildren(el("p", {}, "Looking up…"));
  $("copy-status").textContent = "";
  try {
    const answer = await api("/v1/lookup", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ text, source_locale: from, target_locale: to, threshold: Number(threshold) }),
    });
    matches = answer.matches;
    const head = [];
    const codes = answer.query.runs.filter((r) => typeof r.text !== "string");
    if (codes.length) {
      head.push(el("p", { class: "hint query-note" },
        `Your text has codes: ${codes.map((r) => runsText([r], "markup", (r.pc_open || r.pc_close || r.ph || r.sub || {}).data || "")).join(" ").trim() || codes.length}. `,
        "Suggestions carry them where they can be placed."));
    }
    if (matches.length === 0) {
      results.replaceChildren(...head, el("p", {}, `No suggestion at or above ${threshold} %.`));
      return;
    }
    results.replaceChildren(...head, el("ol", { "aria-label": "Suggestions" }, ...matches.map(matchView)));
    fillOrigins();
  } catch (e) { showError(results, e); }
}

function matchView(m, n) {
  const [name, kind] = label(m);
  const repaired = [...new Set((m.repairs || []).filter((r) => r.applied).map((r) => repairName(r.kind)))];
  const copy = el("button", { type: "button", class: "copy", ...(n < 9 ? { "aria-keyshortcuts": String(n + 1) } : {}) },
    n < 9 ? `Copy (${n + 1})` : "Copy");
  copy.addEventListener("click", () => copyMatch(n));
  const project = m.project_id || [...new Set(m.origins.map((o) => o.project_id).filter(Boolean))].join(", ");
  const details = el("details", {},
    el("summary", {}, "Details"),
    el("dl", {},
      el("dt", {}, "Match type"), el("dd", {}, `${m.match_type.replace(/_/g, " ")} (tier ${m.tier}), score ${m.percent} %`),
      el("dt", {}, "Entry"), el("dd", {}, String(m.entry_id)),
      ...(m.point ? [el("dt", {}, "Point"), el("dd", {}, m.point)] : []),
      ...(wordRepairs(m).length ? [el("dt", {}, "Words repaired"), el("dd", { class: "word-repairs" }, wordRepairs(m).join("; "))] : []),
      el("dt", {}, "Write events"), el("dd", {}, m.origins.length
        ? m.origins.map((o) => [o.created_at, o.project_id].filter(Boolean).join(" ") || "(undated)").join("; ") : "none recorded")));
  const noteList = notes(m);
  const item = el("li", { class: "match", id: `match-${n + 1}`, "aria-labelledby": `match-${n + 1}-label` },
    el("div", { class: "head" },
      el("span", { class: "key", "aria-hidden": "true" }, String(n + 1)),
      el("span", { class: `label ${kind}`, id: `match-${n + 1}-label` }, `${n + 1}. ${name}`),
      ...(m.ambiguous ? [el("span", { class: "warning" }, "Different answers were approved — check")] : []),
      ...(repaired.length ? [el("span", { class: "repaired-label" }, `Repaired: ${repaired.join(" / ")}`)] : [])),
    el("dl", {},
      el("dt", {}, "Use"), el("dd", { class: "use adapted" }, marked(m.target.text, m.adapted_target.text, m)),
      ...(m.adapted_target.text !== m.target.text ? [el("dt", {}, "Stored translation"), el("dd", { class: "target" }, m.target.text)] : []),
      el("dt", {}, "Memory source"), el("dd", { class: "source" }, sourceDiff(m)),
      el("dt", {}, "Origin"), el("dd", { class: "origin" }, [(m.memory || memoryName) && `memory ${m.memory || memoryName}`, project && `project ${project}`].filter(Boolean).join(" · ") || "—"),
      ...(m.unit ? [el("dt", {}, "Unit"), el("dd", {}, m.unit)] : []),
      el("dt", {}, "Approved"), el("dd", {},
        `${m.approvals} time${m.approvals === 1 ? "" : "s"}${m.last_approved ? `, last ${m.last_approved.replace("T", " ").replace("Z", " UTC")}` : ""}`)),
    ...(noteList.length ? [el("ul", { class: "notes", "aria-label": "Notes" }, ...noteList.map((t) => el("li", {}, t)))] : []),
    details,
    el("div", { class: "actions" }, copy, actionButton("Edit", () => editForm(m, item)),
      actionButton("History", () => showHistory(m, item)), actionButton("Delete", () => deleteMatch(m, item))),
    el("div", { class: "edit-status", "aria-live": "polite" }));
  return item;
}

function actionButton(text, action) {
  const b = el("button", { type: "button" }, text);
  b.addEventListener("click", action);
  return b;
}

// An entry's address on the API: of several memories served, the match's own memory
// (a server with several writable memories refuses a write that names none).
function entryUrl(m, rest = "") {
  const memory = m.memory ? `?memory=${encodeURIComponent(m.memory)}` : "";
  return `/v1/entries${m.entry_id === undefined ? "" : `/${m.entry_id}`}${rest}${memory}`;
}

// The file, context or origin an import recorded (metadata such as `jsonl:origin` or a
// TMX property), read from each matched entry.
async function fillOrigins() {
  const shown = matches;
  await Promise.all(shown.map(async (m, n) => {
    try {
      const entry = await api(entryUrl(m));
      const where = (entry.metadata || []).filter(([k]) => /origin|file|context|project/i.test(k) && !k.startsWith("cmem:"))
        .map(([, v]) => v);
      const dd = document.querySelector(`#match-${n + 1} .origin`);
      if (dd && matches === shown && where.length) {
        dd.textContent = [dd.textContent === "—" ? "" : dd.textContent, ...new Set(where)].filter(Boolean).join(" · ");
      }
    } catch { /* the entry may be gone: the origin stays as the match gave it */ }
  }));
}

async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // Without the asynchronous clipboard (an insecure origin, no permission): a
    // selection copied the classic way.
    const area = el("textarea", { "aria-hidden": "true", style: "position:fixed;left:-9999px" });
    area.value = text;
    document.body.append(area);
    area.select();
    const ok = document.execCommand("copy");
    area.remove();
    if (!ok) throw new Error("the browser refused to copy");
  }
}

async function copyMatch(n) {
  const m = matches[n];
  if (!m) return;
  const text = runsText(m.adapted_target.runs, $("lookup-codes").value, m.adapted_target.text);
  const status = $("copy-status");
  try {
    await copyText(text);
    status.textContent = `Copied suggestion ${n + 1}: ${text}`;
    const item = $(`match-${n + 1}`);
    item.classList.add("copied");
    setTimeout(() => item.classList.remove("copied"), 1500);
  } catch (e) { status.textContent = `Could not copy: ${e.message}`; }
}

// ---- Confirmation, edits, history, undo.

// The open question's answer, settled once by whichever comes first: the dialog's close
// event, or the next question. A close event is queued, not dispatched at once, so after
// Escape and an immediate second Delete the first showing's close can arrive while the
// second is open; it must neither answer the second nor be lost.
let answer = null;

function settle() {
  const dialog = $("confirm");
  if (dialog.open || !answer) return;
  const done = answer;
  answer = null;
  done(dialog.returnValue === "ok");
}

function confirmDialog(title, body, action) {
  const dialog = $("confirm");
  settle();
  $("confirm-title").textContent = title;
  $("confirm-body").replaceChildren(...body);
  $("confirm-ok").textContent = action;
  dialog.returnValue = "";
  const back = document.activeElement;
  dialog.showModal();
  $("confirm-cancel").focus();
  return new Promise((resolve) => {
    answer = (ok) => { back?.focus(); resolve(ok); };
  });
}

const mode = (runs) => (hasCodes(runs) ? "numbered" : "none");

function editForm(m, item) {
  item.querySelector(".edit-form")?.remove();
  const id = m.entry_id;
  const runs = m.target.runs;
  if (runs.some((r) => r.plural || r.select)) {
    item.querySelector(".edit-status").textContent = "A translation with plural or select forms is edited with the API.";
    return;
  }
  const text = el("textarea", { id: `edit-target-${id}`, rows: "2", required: "" });
  text.value = runsText(runs, mode(runs), m.target.text);
  const cancel = el("button", { type: "button" }, "Cancel");
  const form = el("form", { class: "edit-form" },
    el("label", { for: text.id }, `New translation${hasCodes(runs) ? " (codes as {1}…{/1})" : ""}`), text,
    el("div", { class: "row" }, el("button", { type: "submit" }, "Save"), cancel));
  cancel.addEventListener("click", () => { form.remove(); item.querySelector(".actions button:nth-child(2)").focus(); });
  text.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); form.requestSubmit(); }
    if (e.key === "Escape") cancel.click();
  });
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const status = item.querySelector(".edit-status");
    status.replaceChildren();
    try {
      const newRuns = hasCodes(runs) ? parseNumbered(text.value, runs) : [{ text: text.value }];
      const sure = await confirmDialog("Change this translation?", [
        el("p", {}, "Every user of the memory will get the new text. The old one is kept in the entry's history and can be restored."),
        el("p", {}, el("del", {}, m.target.text)), el("p", {}, el("ins", {}, runsText(newRuns, "markup", text.value)))], "Save");
      if (!sure) { text.focus(); return; }
      status.textContent = "Saving…";
      const history = await api(entryUrl(m, "/revise"), {
        method: "POST", headers: writeHeaders(),
        body: JSON.stringify({ locale: m.target.locale, runs: newRuns, base: runs }),
      });
      form.remove();
      updated(m, item, history, `Saved entry ${id}.`);
    } catch (err) { status.textContent = ""; showError(status, err); }
  });
  item.querySelector(".actions").after(form);
  text.focus();
}

// The match's shown target after a change; an Undo button and the history.
function updated(m, item, history, message) {
  const variant = history.current.variants.find((v) => v.locale === m.target.locale);
  if (variant) {
    m.target = variant;
    m.adapted_target = { text: variant.text, runs: variant.runs };
    const use = item.querySelector(".use");
    use.replaceChildren(variant.text);
    item.querySelector(".target")?.replaceChildren(variant.text);
  }
  const status = item.querySelector(".edit-status");
  const undo = actionButton("Undo", () => undoChange(m, item));
  status.replaceChildren(el("span", {}, `${message} `), undo);
  renderHistory(item, history);
  undo.focus();
}

async function undoChange(m, item) {
  const status = item.querySelector(".edit-status");
  try {
    const history = await api(entryUrl(m, "/undo"), {
      method: "POST", headers: writeHeaders(), body: JSON.stringify({ locale: m.target.locale, base: m.target.runs }),
    });
    updated(m, item, history, `Restored the previous translation of entry ${m.entry_id}.`);
  } catch (err) { showError(status, err); }
}

async function showHistory(m, item) {
  try {
    renderHistory(item, await api(entryUrl(m, "/history")));
    item.querySelector(".history h3")?.focus();
  } catch (err) { showError(item.querySelector(".edit-status"), err); }
}

function renderHistory(item, h) {
  item.querySelector(".history")?.remove();
  const textOf = (variants) => variants.map((v) => `${v.locale}: ${v.text}`).join(" — ");
  const box = el("div", { class: "history" },
    el("h3", { tabindex: "-1" }, `History of entry ${h.entry_id}`),
    el("p", {}, `Now: ${textOf(h.current.variants)} (${h.current.approvals} approval${h.current.approvals === 1 ? "" : "s"})`),
    h.previous.length
      ? el("ol", { class: "previous", "aria-label": "Earlier translations, newest first" }, ...h.previous.map((p) =>
        el("li", {}, `${textOf(p.variants)} — replaced ${p.replaced_at.replace("T", " ").replace("Z", " UTC")}${p.by ? ` by ${p.by}` : ""}`)))
      : el("p", {}, "No earlier translation."),
    el("p", { class: "hint" }, h.origins.length
      ? `Written: ${h.origins.map((o) => [o.created_at, o.project_id].filter(Boolean).join(" ") || "undated").join("; ")}`
      : "No write event recorded."));
  item.append(box);
}

async function deleteMatch(m, item) {
  const status = item.querySelector(".edit-status");
  try {
    writeToken();
    const sure = await confirmDialog("Delete this translation?", [
      el("p", {}, "It is removed from the memory for every user; right afterwards you can undo."),
      el("p", {}, `${m.source.text} → ${m.target.text}`)], "Delete");
    if (!sure) return;
    const entry = await api(entryUrl(m));
    await api(entryUrl(m), { method: "DELETE", headers: writeHeaders() });
    // Undo writes the entry back as it was read, history and all (under a new id).
    const undo = actionButton("Undo", async () => {
      try {
        delete entry.id;
        const added = await api(entryUrl({ memory: m.memory }), { method: "POST", headers: writeHeaders(), body: JSON.stringify(entry) });
        m.entry_id = added.entries[0].id;
        status.replaceChildren(`Restored as entry ${m.entry_id}.`);
        item.querySelector(".actions").hidden = false;
      } catch (err) { showError(status, err); }
    });
    item.querySelector(".actions").hidden = true;
    status.replaceChildren(el("span", {}, `Deleted entry ${m.entry_id}. `), undo);
    undo.focus();
  } catch (err) { showError(status, err); }
}

// ---- Concordance.

// A search snippet marks hits as [word]: shown as <mark>.
function snippet(text) {
  const out = el("span", {});
  for (const [k, part] of text.split(/\[([^\]]*)\]/).entries()) out.append(k % 2 ? el("mark", {}, part) : part);
  return out;
}

let searchOffset = 0;

async function search(offset) {
  const results = $("search-results"), pager = $("search-pager");
  const params = { q: $("search-words").value, locale: $("search-locale").value, limit: 20, offset };
  if ($("search-to").value) params.to = $("search-to").value;
  if ($("search-project").value.trim()) params.project = $("search-project").value.trim();
  results.replaceChildren(el("p", {}, "Searching…"));
  try {
    const page = await api(`/v1/search?${new URLSearchParams(params)}`);
    searchOffset = offset;
    pager.hidden = !(offset > 0 || page.next_offset !== null);
    $("search-previous").disabled = offset === 0;
    $("search-next").disabled = page.next_offset === null;
    $("search-next").dataset.offset = page.next_offset ?? "";
    if (page.hits.length === 0) { results.replaceChildren(el("p", {}, "Nothing found.")); return; }
    results.replaceChildren(
      el("p", {}, `Hits ${offset + 1}–${offset + page.hits.length}${page.next_offset === null ? "" : " (more on the next page)"}`),
      el("ol", { class: "hits", start: String(offset + 1) }, ...page.hits.map((h) => el("li", {},
        snippet(h.snippet),
        ...h.translations.map((t) => el("div", { class: "translation" }, `${t.locale}: ${t.text}`)),
        el("div", { class: "hint" }, [h.project_id || [...new Set((h.origins || []).map((o) => o.project_id).filter(Boolean))].join(", "),
          `${h.approvals} approval${h.approvals === 1 ? "" : "s"}`].filter(Boolean).join(" · "))))));
  } catch (e) { pager.hidden = true; showError(results, e); }
}

// ---- Import and export.

async function importFile() {
  const status = $("import-status"), bar = $("import-progress"), problems = $("import-problems");
  const file = $("import-file").files[0];
  const params = new URLSearchParams({ format: $("import-format").value, name: file.name });
  for (const k of ["from", "to"]) if ($(`import-${k}`).value) params.set(k, $(`import-${k}`).value);
  problems.replaceChildren();
  try {
    const headers = { Authorization: `Bearer ${writeToken()}` };
    bar.hidden = false; bar.removeAttribute("value");
    status.textContent = `Uploading ${file.name}…`;
    let job = await api(`/v1/imports?${params}`, { method: "POST", body: file, headers });
    while (job.status === "running") {
      if (job.upload_bytes && !file.name.endsWith(".gz")) { bar.max = job.upload_bytes; bar.value = job.bytes_read; }
      status.textContent = `Importing: ${job.read} entries read, ${job.inserted} new, ${job.problems} problems`;
      await new Promise((r) => setTimeout(r, 500));
      job = await api(`/v1/imports/${job.id}`);
    }
    bar.max = 1; bar.value = 1;
    status.textContent = job.status === "succeeded"
      ? `Imported ${file.name}: ${job.inserted} new, ${job.deduplicated} already there, ${job.problems} problems.`
      : `Import ${job.status}: ${job.error}`;
    problems.replaceChildren(...job.problem_messages.map((p) => el("li", {}, p)));
    if (job.problems > job.problem_messages.length) {
      problems.append(el("li", {}, `… and ${job.problems - job.problem_messages.length} more`));
    }
    loadLocales();
  } catch (e) { bar.hidden = true; status.textContent = ""; showError(problems, e); }
}

// ---- Locales from the memory's pairs.

let pairs = [];
let memoryName = "";

function options(select, values, keep) {
  const want = keep ?? select.value;
  select.replaceChildren(...select.querySelectorAll("option[value='']"), ...values.map((v) => el("option", { value: v }, v)));
  if (want && !values.includes(want)) select.append(el("option", { value: want }, want));
  if (want) select.value = want;
}

// The targets the chosen source language has; `keep` (or the current one) when it is
// among them or was asked for by name, else the first.
function fillTargets(keep, strict) {
  const from = $("lookup-from").value;
  const targets = [...new Set(pairs.filter((p) => p.source === from).map((p) => p.target))];
  const want = keep ?? $("lookup-to").value;
  options($("lookup-to"), targets, strict && !targets.includes(want) ? targets[0] : want);
}

async function loadLocales(wanted = {}) {
  try {
    const stats = await api("/v1/stats");
    pairs = stats.pairs;
    $("memory").textContent = `${memoryName ? `${memoryName}: ` : ""}${stats.entries.toLocaleString("en")} entries`;
    const sources = [...new Set(pairs.map((p) => p.source))];
    const all = [...new Set(pairs.flatMap((p) => [p.source, p.target]))].sort();
    options($("lookup-from"), sources, wanted.from ?? recall("from") ?? sources[0]);
    fillTargets(wanted.to ?? recall("to") ?? undefined);
    options($("search-locale"), all, wanted.locale ?? recall("search-locale") ?? sources[0]);
    options($("search-to"), all, recall("search-to") ?? "");
  } catch (e) {
    $("memory").textContent = /token/.test(e.message) ? `${e.message}: enter one under Write access` : e.message;
  }
}

async function start() {
  const url = new URLSearchParams(location.search);
  try {
    const ready = await api("/readyz");
    memoryName = String(ready.memory || "").split(/[\\/]/).pop().replace(/\.db$/, "");
  } catch { /* the name is only shown */ }
  await loadLocales({ from: url.get("from") ?? undefined, to: url.get("to") ?? undefined, locale: url.get("locale") ?? undefined });
  const codes = recall("codes");
  if (codes) $("lookup-codes").value = codes;
  try { $("write-token").value = sessionStorage.getItem("cmem.token") || ""; } catch { /* no storage */ }

  $("lookup-from").addEventListener("change", () => {
    remember("from", $("lookup-from").value);
    fillTargets(undefined, true);
    remember("to", $("lookup-to").value);
  });
  $("lookup-to").addEventListener("change", () => remember("to", $("lookup-to").value));
  $("lookup-codes").addEventListener("change", () => remember("codes", $("lookup-codes").value));
  $("search-locale").addEventListener("change", () => remember("search-locale", $("search-locale").value));
  $("search-to").addEventListener("change", () => remember("search-to", $("search-to").value));
  $("write-token").addEventListener("change", () => {
    try { sessionStorage.setItem("cmem.token", $("write-token").value.trim()); } catch { /* no storage */ }
    if (!pairs.length) loadLocales();
  });
  $("token-forget").addEventListener("click", () => {
    $("write-token").value = "";
    try { sessionStorage.removeItem("cmem.token"); } catch { /* no storage */ }
  });
  $("lookup-form").addEventListener("submit", (e) => { e.preventDefault(); lookup(); });
  $("confirm").addEventListener("close", settle);
  // Enter looks up; Shift+Enter starts a new line.
  $("lookup-text").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); $("lookup-form").requestSubmit(); }
  });
  // 1–9 copy the n-th suggestion; in a text field (where digits are typed) Alt+1–9.
  document.addEventListener("keydown", (e) => {
    if (!/^[1-9]$/.test(e.key) && !/^Digit[1-9]$/.test(e.code)) return;
    if (e.ctrlKey || e.metaKey || $("confirm").open) return;
    const t = e.target;
    const typing = t instanceof HTMLTextAreaElement || t instanceof HTMLSelectElement
      || (t instanceof HTMLInputElement && !["button", "submit", "checkbox", "radio", "file"].includes(t.type));
    if (typing && !e.altKey) return;
    const n = Number(e.code.startsWith("Digit") ? e.code.slice(5) : e.key) - 1;
    if (!matches[n]) return;
    e.preventDefault();
    copyMatch(n);
  });
  $("search-form").addEventListener("submit", (e) => { e.preventDefault(); search(0); });
  $("search-previous").addEventListener("click", () => search(Math.max(0, searchOffset - 20)));
  $("search-next").addEventListener("click", () => search(Number($("search-next").dataset.offset)));
  $("import-form").addEventListener("submit", (e) => { e.preventDefault(); importFile(); });
  // A link cannot send a token: where reads need one, the export is fetched with it and
  // handed to the browser as a file.
  $("export-link").addEventListener("click", async (e) => {
    if (!readsNeedToken) return;
    e.preventDefault();
    const status = $("import-status");
    try {
      status.textContent = "Exporting…";
      const response = await fetch(e.currentTarget.href, { headers: { Authorization: `Bearer ${writeToken()}` } });
      if (!response.ok) throw new Error(`export: ${response.status} ${response.statusText}`);
      const name = /filename="([^"]+)"/.exec(response.headers.get("content-disposition") || "")?.[1] || "memory";
      const url = URL.createObjectURL(await response.blob());
      const a = el("a", { href: url, download: name, hidden: "" });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60000);
      status.textContent = `Exported ${name}.`;
    } catch (err) { status.textContent = ""; showError($("import-problems"), err); }
  });
  $("export-format").addEventListener("change", () => {
    $("export-link").href = `/v1/export?format=${encodeURIComponent($("export-format").value)}`;
  });

  // A link can ask for a lookup (?q=…&from=…&to=…) or a search (?search=…&locale=…).
  if (url.get("q")) { $("lookup-text").value = url.get("q"); $("lookup-form").requestSubmit(); }
  if (url.get("search")) { $("search-words").value = url.get("search"); $("search-form").requestSubmit(); }
  $("lookup-text").focus();
}

start();
