// The page of cmem's server: lookups, concordance search and imports over the /v1 API.
// Every text from the memory is put in the page as text (never as markup).
"use strict";

const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  for (const c of children) node.append(c instanceof Node ? c : String(c));
  return node;
}

async function api(path, options) {
  const response = await fetch(path, options);
  const body = response.headers.get("content-type")?.includes("json") ? await response.json() : null;
  if (!response.ok) throw new Error(body?.message || `${response.status} ${response.statusText}`);
  return body;
}

// Word-level differences of `from` → `to`: deleted words in <del>, added in <ins>.
function diff(from, to) {
  const a = from.split(/(\s+)/), b = to.split(/(\s+)/);
  const n = a.length, m = b.length;
  const lcs = Array.from({ length: n + 1 }, () => new Array(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const out = el("span", { class: "diff" });
  let i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) { out.append(a[i]); i++; j++; }
    else if (i < n && (j === m || lcs[i + 1][j] >= lcs[i][j + 1])) { out.append(el("del", {}, a[i])); i++; }
    else { out.append(el("ins", {}, b[j])); j++; }
  }
  return out;
}

function showError(target, error) {
  target.replaceChildren(el("p", { class: "error", role: "alert" }, error.message));
}

async function lookup(text, from, to, threshold) {
  const results = $("lookup-results");
  results.replaceChildren(el("p", {}, "Looking up…"));
  try {
    const answer = await api("/v1/lookup", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ text, source_locale: from, target_locale: to, threshold: Number(threshold) }),
    });
    if (answer.matches.length === 0) {
      results.replaceChildren(el("p", {}, `No match at or above ${threshold} %.`));
      return;
    }
    results.replaceChildren(...answer.matches.map((m) => {
      const origins = m.origins.map((o) => [o.project_id, o.created_at].filter(Boolean).join(" ")).filter(Boolean);
      return el("article", { class: "match" },
        el("div", { class: "head" },
          el("span", { class: "score" }, `${m.percent} %`),
          el("span", { class: "tier" }, m.match_type.replace(/_/g, " ")),
          el("span", {}, `entry ${m.entry_id}`),
          ...(m.ambiguous ? [el("span", { class: "ambiguous" }, "ambiguous")] : [])),
        el("dl", {},
          el("dt", {}, "Query → source"), el("dd", {}, diff(answer.query.text, m.source.text)),
          el("dt", {}, "Target"), el("dd", { class: "target" }, m.target.text),
          el("dt", {}, "Use"), el("dd", { class: "adapted" }, m.adapted_target.text),
          el("dt", {}, "Origins"), el("dd", {}, origins.length ? origins.join("; ") : `${m.approvals} approval(s)`)),
        ...(m.target.runs.every(isText) ? [editButton(m)] : []));
    }));
  } catch (e) { showError(results, e); }
}

// Only a target of plain text is edited here: one with inline codes would lose them in a
// text box (the API takes its runs).
const isText = (run) => Object.keys(run).length === 1 && typeof run.text === "string";

function editButton(m) {
  const button = el("button", { type: "button", class: "edit" }, "Edit target");
  button.addEventListener("click", () => button.replaceWith(editForm(m, button)));
  return button;
}

// Replaces the match's target: the entry is read, its target variant's text swapped, and
// the whole entry sent back (PUT keeps its id; a write token is needed).
function editForm(m, button) {
  const id = m.entry_id;
  const text = el("textarea", { id: `edit-target-${id}`, rows: "2", required: "" });
  text.value = m.target.text;
  const token = el("input", { id: `edit-token-${id}`, type: "password", size: "40", autocomplete: "off", required: "" });
  token.value = $("import-token").value;
  const status = el("div", { class: "edit-status", "aria-live": "polite" });
  const cancel = el("button", { type: "button" }, "Cancel");
  const form = el("form", { class: "edit-form" },
    el("label", { for: text.id }, `New target of entry ${id}`), text,
    el("div", { class: "row" },
      el("label", {}, "Write token ", token), el("button", { type: "submit" }, "Save"), cancel),
    status);
  cancel.addEventListener("click", () => { form.replaceWith(button); button.focus(); });
  text.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); form.requestSubmit(); }
  });
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const headers = { Authorization: `Bearer ${token.value}`, "Content-Type": "application/json" };
    status.textContent = "Saving…";
    try {
      const entry = await api(`/v1/entries/${id}`, { headers });
      const variant = entry.variants.find((v) => v.locale === m.target.locale);
      if (!variant) throw new Error(`entry ${id} has no ${m.target.locale} variant any more`);
      variant.runs = [{ text: text.value }];
      await api(`/v1/entries/${id}`, { method: "PUT", headers, body: JSON.stringify(entry) });
      form.closest(".match").querySelector(".target").textContent = text.value;
      status.textContent = `Saved entry ${id}.`;
    } catch (err) { status.textContent = ""; showError(status, err); }
  });
  queueMicrotask(() => text.focus());
  return form;
}

// A search snippet marks hits as [word]: shown as <mark>.
function snippet(text) {
  const out = el("span", {});
  for (const [k, part] of text.split(/\[([^\]]*)\]/).entries()) out.append(k % 2 ? el("mark", {}, part) : part);
  return out;
}

async function search(words, locale) {
  const results = $("search-results");
  results.replaceChildren(el("p", {}, "Searching…"));
  try {
    const page = await api(`/v1/search?${new URLSearchParams({ q: words, locale, limit: 50 })}`);
    if (page.hits.length === 0) { results.replaceChildren(el("p", {}, "Nothing found.")); return; }
    results.replaceChildren(el("ol", {}, ...page.hits.map((h) => el("li", {},
      snippet(h.snippet), ...h.translations.map((t) => el("div", {}, `${t.locale}: ${t.text}`))))));
  } catch (e) { showError(results, e); }
}

async function importFile(form) {
  const status = $("import-status"), bar = $("import-progress"), problems = $("import-problems");
  const file = $("import-file").files[0];
  const params = new URLSearchParams({ format: $("import-format").value, name: file.name });
  for (const k of ["from", "to"]) if ($(`import-${k}`).value) params.set(k, $(`import-${k}`).value);
  problems.replaceChildren();
  bar.hidden = false; bar.removeAttribute("value");
  status.textContent = `Uploading ${file.name}…`;
  try {
    let job = await api(`/v1/imports?${params}`, {
      method: "POST", body: file, headers: { Authorization: `Bearer ${$("import-token").value}` },
    });
    while (job.status === "running") {
      if (job.upload_bytes && !file.name.endsWith(".gz")) { bar.max = job.upload_bytes; bar.value = job.bytes_read; }
      status.textContent = `Importing: ${job.read} entries read, ${job.inserted} new, ${job.problems} problems`;
      await new Promise((r) => setTimeout(r, 500));
      job = await api(`/v1/imports/${job.id}`);
    }
    bar.max = 1; bar.value = 1;
    status.textContent = job.status === "succeeded"
      ? `Imported: ${job.inserted} new, ${job.deduplicated} already there, ${job.problems} problems.`
      : `Import ${job.status}: ${job.error}`;
    problems.replaceChildren(...job.problem_messages.map((p) => el("li", {}, p)));
  } catch (e) { bar.hidden = true; status.textContent = ""; showError(problems, e); }
}

async function start() {
  try {
    const stats = await api("/v1/stats");
    const pair = stats.pairs[0];
    $("memory").textContent = `${stats.entries.toLocaleString("en")} entries`;
    if (pair) {
      for (const id of ["lookup-from", "search-locale"]) if (!$(id).value) $(id).value = pair.source;
      if (!$("lookup-to").value) $("lookup-to").value = pair.target;
    }
  } catch (e) { $("memory").textContent = e.message; }
  $("lookup-form").addEventListener("submit", (e) => {
    e.preventDefault();
    lookup($("lookup-text").value, $("lookup-from").value, $("lookup-to").value, $("lookup-threshold").value);
  });
  // Enter looks up; Shift+Enter starts a new line.
  $("lookup-text").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); $("lookup-form").requestSubmit(); }
  });
  $("search-form").addEventListener("submit", (e) => {
    e.preventDefault();
    search($("search-words").value, $("search-locale").value);
  });
  $("import-form").addEventListener("submit", (e) => { e.preventDefault(); importFile(e.target); });

  // A link can ask for a lookup (?q=…&from=…&to=…) or a search (?search=…&locale=…).
  const url = new URLSearchParams(location.search);
  if (url.get("from")) $("lookup-from").value = url.get("from");
  if (url.get("to")) $("lookup-to").value = url.get("to");
  if (url.get("q")) { $("lookup-text").value = url.get("q"); $("lookup-form").requestSubmit(); }
  if (url.get("locale")) $("search-locale").value = url.get("locale");
  if (url.get("search")) { $("search-words").value = url.get("search"); $("search-form").requestSubmit(); }
  $("lookup-text").focus();
}

start();
