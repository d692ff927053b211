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

// What the stored source's differences from the query are made of: "punctuation",
// "markup", "case", "spaces", "numbers" or "words".
const TAGS = /<[^<>]*>/g;
function changeKinds(diff) {
  const kinds = new Set();
  for (let k = 0; k < diff.length; k++) {
    const op = diff[k];
    if (op.op === "equal") continue;
    const next = diff[k + 1];
    if (op.op === "delete" && next?.op === "insert" && op.text !== next.text
      && op.text.toLowerCase() === next.text.toLowerCase()) { kinds.add("case"); k++; continue; }
    if (TAGS.test(op.text)) kinds.add("markup");
    TAGS.lastIndex = 0;
    const rest = op.text.replace(TAGS, "");
    if (!rest) continue;
    if (!rest.trim()) kinds.add("spaces");
    else if (/^[\s\p{P}\p{S}]+$/u.test(rest) && !/%|\{|&/.test(rest)) kinds.add("punctuation");
    else if (/^[\s\d\p{P}\p{S}]+$/u.test(rest) && /\d/.test(rest)) kinds.add("numbers");
    else kinds.add("words");
  }
  return kinds;
}

const floorPercent = (m) => Math.floor(m.percent + 1e-9);

// The score in words, the same on the card and in its details: "exact", "exact except
// punctuation", "fuzzy 86 %"; and its colour class.
function label(m) {
  if (m.percent > 100 || /context/.test(m.match_type)) return ["context match", "exact"];
  const kinds = changeKinds(m.identical_source ? [] : m.diff || []);
  if (!kinds.size && m.tier <= 3) {
    const why = m.match_type === "plain_exact" ? " except markup"
      : (m.penalties || []).some((p) => p.kind === "whitespace") ? " except spaces" : "";
    return [`exact${why}`, "exact"];
  }
  if (kinds.size && !kinds.has("words")) return [`exact except ${[...kinds].join(" and ")}`, "exact"];
  // Equal keys, other entity values (a number, a placeholder): carried into the target.
  if (m.tier <= 2 && m.percent >= 100) return ["exact", "exact"];
  return [`fuzzy ${floorPercent(m)} %`, "fuzzy"];
}

// The name a translator gives a tag.
const TAG_NAMES = { b: "bold", strong: "bold", i: "italic", em: "italic", u: "underline", a: "a link", code: "code",
  sup: "superscript", sub: "subscript", s: "strike-through", span: "formatting", font: "formatting" };
const tagName = (tag) => { const n = /^<\/?([\w:-]+)/.exec(tag)?.[1]?.toLowerCase() || "markup"; return TAG_NAMES[n] || `<${n}>`; };

// "bold added around *Save*": for each tag the query added (or the memory's source has and
// the query lacks), the words of that side it encloses.
function codeChanges(diff) {
  const out = [];
  for (const [side, verb] of [["insert", "added"], ["delete", "removed"]]) {
    // The text of one side, with where each of that side's own tags starts and ends.
    let text = "";
    const own = [];
    for (const op of diff) {
      if (op.op !== "equal" && op.op !== side) continue;
      for (const part of op.text.split(/(<[^<>]*>)/)) {
        if (op.op === side && /^<[^<>]*>$/.test(part)) own.push([part, text.length]);
        else if (!/^<[^<>]*>$/.test(part)) text += part;
      }
    }
    for (const [k, [tag, at]] of own.entries()) {
      if (tag.startsWith("</") || tag.endsWith("/>")) continue;
      const name = /^<([\w:-]+)/.exec(tag)?.[1];
      const close = own.slice(k + 1).find(([t]) => t.toLowerCase() === `</${name}>`.toLowerCase());
      const words = close ? text.slice(at, close[1]).trim() : "";
      out.push(words ? `${tagName(tag)} ${verb} around *${words}*` : `${tagName(tag)} ${verb}`);
    }
  }
  return out;
}

// The marks of punctuation that differ: "':'", "'.' and '!'".
function punctuationChanges(diff) {
  const marks = new Set();
  for (const op of diff) {
    if (op.op === "equal") continue;
    for (const c of op.text.replace(TAGS, "")) if (/[\p{P}\p{S}]/u.test(c)) marks.add(`'${c}'`);
  }
  return [...marks];
}

// One line saying why a match is not exact, or what was changed for the query.
function why(m) {
  const out = [];
  const diff = m.identical_source ? [] : m.diff || [];
  const kinds = changeKinds(diff);
  const applied = new Set((m.repairs || []).filter((r) => r.applied).map((r) => repairName(r.kind)));
  if (kinds.has("punctuation")) {
    const marks = punctuationChanges(diff);
    out.push(`punctuation differs${marks.length ? `: ${marks.slice(0, 4).join(" ")}` : ""}${applied.delete("punctuation") ? ", repaired" : ""}`);
  }
  if (kinds.has("markup")) out.push(...codeChanges(diff).slice(0, 2));
  // Where a code went when the memory did not know the words it marks.
  for (const a of (m.code_adaptations || []).filter((a) => a.role !== "pc_close"
    && (a.placement?.by === "stored" || a.placement?.by === "nowhere")).slice(0, 2)) {
    const name = tagName(a.to?.data || a.from?.data || "");
    out.push(a.placement.by === "stored"
      ? `${name} put where the memory had ${tagName(a.from?.data || "")}${a.placement.target ? `, around *${a.placement.target}*` : ""}: the memory does not know which words it marks`
      : `${name} could not be placed`);
  }
  if (kinds.has("case")) out.push("letter case differs");
  if (kinds.has("spaces") && kinds.size === 1) out.push("spaces differ");
  // Entity values and placeholders carried from the query: "%s → %d as in your text".
  const put = [...(m.entity_adaptations || []).filter((a) => a.applied).map((a) => `${a.from} → ${a.to}`),
    ...(m.code_adaptations || []).filter((a) => a.applied && a.from && a.to && a.from.data && a.to.data
      && a.from.data !== a.to.data && !/^</.test(a.to.data)).map((a) => `${a.from.data} → ${a.to.data}`)];
  if (put.length) out.push(`${[...new Set(put)].slice(0, 3).join(", ")} as in your text`);
  const repaired = [...applied];
  if (repaired.length) out.push(`${repaired.join(" and ")} changed for your text`);
  for (const p of m.penalties || []) if (p.kind !== "whitespace") out.push(`${PENALTIES[p.kind]?.(m) ?? `lowered for its ${p.kind}`} (−${p.points} %)`);
  return out.join("; ");
}

// What lowered a match's score, as the translator reads it.
const PENALTIES = {
  whitespace: () => "differs from your text in spaces only",
  region: (m) => `written for another region (${m.source.locale} → ${m.target.locale})`,
  project: (m) => `from another project${m.project_id ? ` (${m.project_id})` : ""}`,
  client: () => "written for another client",
  origin: () => "of an origin that counts less (such as machine translation)",
  status: () => "not reviewed, or not approved",
  file: () => "from a file that counts less",
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

// What needs the translator's hand; repairs that were not needed are not mentioned.
function notes(m) {
  const out = [];
  if (m.ambiguous) out.push("Different answers were approved: check this one");
  for (const a of m.entity_adaptations || []) {
    if (!a.applied) out.push(`${a.entity_type} ${a.from} → ${a.to} not changed: the translation does not hold it`);
  }
  const unplaced = (m.code_adaptations || []).filter((a) => !a.applied && a.to).map((a) => a.to.data || `{${a.to.id}}`);
  if (unplaced.length) out.push(`Codes of your text that could not be placed in the translation: ${unplaced.join(" ")} — add them by hand`);
  if ((m.code_adaptations || []).some((a) => !a.applied && !a.to)) out.push("The translation keeps a placeholder your text does not have");
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
    else if (op.op === "insert" && repaired.some((t) => op.text.includes(t) || (op.text.trim() && t.includes(op.text.trim())))) {
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
// Each lookup's number: an answer that arrives after a newer lookup started is dropped.
let asked = 0;

async function lookup() {
  const results = $("lookup-results"), count = $("lookup-count");
  const text = $("lookup-text").value, from = $("lookup-from").value, to = $("lookup-to").value;
  const threshold = $("lookup-threshold").value;
  if (!text.trim() || !from || !to) return;
  const mine = ++asked;
  results.setAttribute("aria-busy", "true");
  $("copy-status").textContent = "";
  try {
    const answer = await api("/v1/lookup", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        text, source_locale: from, target_locale: to, threshold: Number(threshold), fragments: true, terms: true,
      }),
    });
    if (mine !== asked) return;
    matches = answer.matches;
    const evidence = evidenceView(answer, from, to);
    const head = [];
    const codes = answer.query.runs.filter((r) => typeof r.text !== "string");
    if (codes.length) {
      head.push(el("p", { class: "hint query-note" },
        `Your text has codes: ${codes.map((r) => runsText([r], "markup", (r.pc_open || r.pc_close || r.ph || r.sub || {}).data || "")).join(" ").trim() || codes.length}. `,
        "Suggestions carry them where they can be placed."));
    }
    // The live region says how many, not the whole list.
    if (matches.length === 0) {
      results.replaceChildren(...head, ...evidence);
      count.textContent = `No suggestion at or above ${threshold} %.`;
      return;
    }
    const [best] = label(matches[0]);
    count.textContent = `${matches.length} suggestion${matches.length === 1 ? "" : "s"}, the first ${best}.`;
    results.replaceChildren(...head, el("ol", { "aria-label": "Suggestions" }, ...matches.map(matchView)), ...evidence);
  } catch (e) {
    if (mine !== asked) return;
    count.textContent = "";
    showError(results, e);
  } finally {
    if (mine === asked) results.removeAttribute("aria-busy");
  }
}

// Below the suggestions: the glossary's terms the text holds and the fragments the memory
// translates consistently (never filled in).
function evidenceView(answer, from, to) {
  const out = [];
  const pair = (source, target) => [el("span", { lang: from }, source), " → ", el("span", { lang: to, class: "evidence-target" }, target)];
  if ((answer.terms || []).length) {
    out.push(el("section", { class: "evidence terms", "aria-labelledby": "terms-title" },
      el("h3", { id: "terms-title" }, "Terms"),
      el("ul", {}, ...answer.terms.map((t) => el("li", {}, ...pair(t.found, t.target),
        el("span", { class: "hint" }, t.given ? " (given glossary)" : ` (${t.count} of ${t.seen} in the memory)`))))));
  }
  if ((answer.fragments || []).length) {
    out.push(el("section", { class: "evidence fragments", "aria-labelledby": "fragments-title" },
      el("h3", { id: "fragments-title" }, "Fragments the memory knows"),
      el("p", { class: "hint" }, "Stretches of your text the memory translates one way; never filled in."),
      el("ul", {}, ...answer.fragments.map((f) => el("li", {}, ...pair(f.source, f.target),
        el("span", { class: "hint" }, ` (${f.agreeing} of ${f.seen} agree)`))))));
  }
  return out;
}

// Lookup as you type: after a pause in typing, at once on paste.
let typing = null;
function lookupSoon(delay) {
  clearTimeout(typing);
  typing = setTimeout(lookup, delay);
}

// Where an answer comes from: its memory, project, the file an import recorded, and
// when it was written ("imported" when the import gave no date).
function provenance(m) {
  const project = m.project_id || [...new Set((m.origins || []).map((o) => o.project_id).filter(Boolean))].join(", ");
  const dates = (m.origins || []).map((o) => o.created_at).filter(Boolean).sort();
  const when = m.last_approved || dates[dates.length - 1];
  return [(m.memory || memoryName) && `memory ${m.memory || memoryName}`, project && `project ${project}`,
    ...(m.provenance || []), when ? when.slice(0, 10) : "imported"].filter(Boolean).join(" · ");
}

const hidden = (text) => el("span", { class: "visually-hidden" }, text);

// A suggestion as one card: its score in words and why, the text to use, the memory's
// source with the query's differences marked, where it comes from. Two tab stops: the
// card (Enter copies) and its More menu.
function matchView(m, n) {
  const [name, kind] = label(m);
  const reason = why(m);
  const more = el("button", { type: "button", class: "more", "aria-haspopup": "menu", "aria-expanded": "false",
    "aria-controls": `match-${n + 1}-menu`, "aria-label": `More for suggestion ${n + 1}` }, "More");
  const noteList = notes(m);
  const item = el("li", { class: "match", id: `match-${n + 1}`, tabindex: "0", "aria-labelledby": `match-${n + 1}-label`,
    "aria-describedby": `match-${n + 1}-use`, ...(n < 9 ? { "aria-keyshortcuts": String(n + 1) } : {}) },
    el("div", { class: "head" },
      el("span", { class: "key", "aria-hidden": "true" }, String(n + 1)),
      el("span", { class: `label ${kind}`, id: `match-${n + 1}-label` }, hidden(`Suggestion ${n + 1}: `), name),
      ...(reason ? [el("span", { class: "why", title: reason }, reason)] : []),
      more),
    el("p", { class: "use adapted", id: `match-${n + 1}-use` }, marked(m.target.text, m.adapted_target.text, m)),
    el("p", { class: "line" }, el("span", { class: "source" }, hidden("Memory source: "), sourceDiff(m)),
      el("span", { class: "origin" }, hidden("From: "), provenance(m))),
    ...(noteList.length ? [el("ul", { class: "notes", "aria-label": "Notes" }, ...noteList.map((t) => el("li", {}, t)))] : []),
    el("div", { class: "edit-status", "aria-live": "polite" }));
  menu(item, more, [
    ["Copy", () => copyMatch(n)],
    ["Details", () => showDetails(m, item)],
    ["Edit", () => editForm(m, item)],
    ["History", () => showHistory(m, item)],
    ["Delete", () => deleteMatch(m, item)],
  ]);
  item.addEventListener("keydown", (e) => {
    if (e.target === item && e.key === "Enter") { e.preventDefault(); copyMatch(n); }
  });
  item.addEventListener("dblclick", (e) => { if (!e.target.closest("button, form, .menu, .history, .details")) copyMatch(n); });
  return item;
}

// The details: the score as on the card with the engine's own terms, the entry, the
// stored translation, word repairs with their evidence, every write event.
function showDetails(m, item) {
  const old = item.querySelector(".details");
  if (old) { old.remove(); return; }
  const [name] = label(m);
  const box = el("div", { class: "details", tabindex: "-1", "aria-label": "Details" },
    el("dl", {},
      el("dt", {}, "Score"), el("dd", {}, `${name}: ${floorPercent(m)} % (found as ${m.match_type.replace(/_/g, " ")}, tier ${m.tier})`),
      ...(m.adapted_target.text !== m.target.text ? [el("dt", {}, "Stored translation"), el("dd", { class: "target" }, m.target.text)] : []),
      el("dt", {}, "Entry"), el("dd", {}, String(m.entry_id)),
      ...(m.point ? [el("dt", {}, "Point"), el("dd", {}, m.point)] : []),
      ...(m.unit ? [el("dt", {}, "Unit"), el("dd", {}, m.unit)] : []),
      ...(wordRepairs(m).length ? [el("dt", {}, "Words repaired"), el("dd", { class: "word-repairs" }, wordRepairs(m).join("; "))] : []),
      el("dt", {}, "Approved"), el("dd", {},
        `${m.approvals} time${m.approvals === 1 ? "" : "s"}${m.last_approved ? `, last ${m.last_approved.replace("T", " ").replace("Z", " UTC")}` : ""}`),
      el("dt", {}, "Write events"), el("dd", {}, m.origins.length
        ? m.origins.map((o) => [o.created_at, o.project_id].filter(Boolean).join(" ") || "imported, undated").join("; ") : "none recorded")));
  item.querySelector(".edit-status").before(box);
  box.focus();
}

// A menu button: arrow keys move among the items, Enter or a click runs one, Escape and
// Tab close it; the focus returns to the button.
function menu(item, button, entries) {
  const list = el("div", { class: "menu", role: "menu", id: button.getAttribute("aria-controls"), hidden: "" });
  const items = entries.map(([text, action]) => {
    const b = el("button", { type: "button", role: "menuitem", tabindex: "-1" }, text);
    b.addEventListener("click", () => { close(false); action(); });
    return b;
  });
  list.append(...items);
  const close = (focus) => {
    list.hidden = true;
    button.setAttribute("aria-expanded", "false");
    if (focus) button.focus();
  };
  const open = (at) => {
    for (const other of document.querySelectorAll(".menu:not([hidden])")) if (other !== list) other.hidden = true;
    list.hidden = false;
    button.setAttribute("aria-expanded", "true");
    items[(at + items.length) % items.length].focus();
  };
  button.addEventListener("click", () => (list.hidden ? open(0) : close(true)));
  button.addEventListener("keydown", (e) => {
    if (e.key === "ArrowDown") { e.preventDefault(); open(0); }
    if (e.key === "ArrowUp") { e.preventDefault(); open(-1); }
  });
  list.addEventListener("keydown", (e) => {
    const k = items.indexOf(document.activeElement);
    if (e.key === "ArrowDown") { e.preventDefault(); items[(k + 1) % items.length].focus(); }
    else if (e.key === "ArrowUp") { e.preventDefault(); items[(k - 1 + items.length) % items.length].focus(); }
    else if (e.key === "Home") { e.preventDefault(); items[0].focus(); }
    else if (e.key === "End") { e.preventDefault(); items[items.length - 1].focus(); }
    else if (e.key === "Escape") { e.preventDefault(); close(true); }
    else if (e.key === "Tab") close(false);
  });
  list.addEventListener("focusout", (e) => { if (!list.contains(e.relatedTarget) && e.relatedTarget !== button) close(false); });
  button.after(list);
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

// The write token, asked for inside the card when none is known yet: a field put at the
// top of `form` (or of a small form of its own), so the translator is asked before
// writing, where the eyes are. Returns the field, or null when a token is known.
function tokenField(form, idBase) {
  if ($("write-token").value.trim()) return null;
  const input = el("input", { id: `${idBase}-token`, type: "password", size: "24", autocomplete: "off", required: "" });
  const row = el("div", { class: "row token-row" },
    el("label", { for: input.id }, "Write token (cmem token create --scope write)"), input);
  form.prepend(row);
  return input;
}

// A token typed in a card is the page's token from then on.
function keepToken(input) {
  if (!input) return;
  $("write-token").value = input.value.trim();
  try { sessionStorage.setItem("cmem.token", input.value.trim()); } catch { /* no storage */ }
  input.closest(".token-row")?.remove();
}

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
  const token = tokenField(form, `edit-${id}`);
  cancel.addEventListener("click", () => { form.remove(); item.focus(); });
  form.addEventListener("keydown", (e) => { if (e.key === "Escape") cancel.click(); });
  text.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); form.requestSubmit(); }
  });
  token?.addEventListener("keydown", (e) => {
    if (e.key === "Enter") { e.preventDefault(); text.focus(); }
  });
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const status = item.querySelector(".edit-status");
    status.replaceChildren();
    try {
      if (token && !token.value.trim()) { token.focus(); throw new Error("Enter a write token first."); }
      const newRuns = hasCodes(runs) ? parseNumbered(text.value, runs) : [{ text: text.value }];
      const sure = await confirmDialog("Change this translation?", [
        el("p", {}, "Every user of the memory will get the new text. The old one is kept in the entry's history and can be restored."),
        el("p", {}, el("del", {}, m.target.text)), el("p", {}, el("ins", {}, runsText(newRuns, "markup", text.value)))], "Save");
      if (!sure) { text.focus(); return; }
      keepToken(token);
      status.textContent = "Saving…";
      const base = m.target.runs;
      const history = await api(entryUrl(m, "/revise"), {
        method: "POST", headers: writeHeaders(),
        body: JSON.stringify({ locale: m.target.locale, runs: newRuns, base }),
      });
      form.remove();
      updated(m, item, history, `Saved entry ${id}.`, { undo: base, redo: newRuns });
    } catch (err) { status.textContent = ""; showError(status, err); }
  });
  item.querySelector(".edit-status").before(form);
  (token || text).focus();
}

// The match's shown target after a change, the history, and one button: Undo after an
// edit, Redo after an undo. A button acts once (it is replaced by its answer), so a
// second press of Undo cannot put the edit back.
function updated(m, item, history, message, change) {
  const variant = history.current.variants.find((v) => v.locale === m.target.locale);
  if (variant) {
    m.target = variant;
    m.adapted_target = { text: variant.text, runs: variant.runs };
    item.querySelector(".use").replaceChildren(variant.text);
    item.querySelector(".details .target")?.replaceChildren(variant.text);
  }
  const status = item.querySelector(".edit-status");
  const text = el("span", { tabindex: "-1" }, `${message} `);
  const parts = [text];
  if (change) {
    const undone = change.undone;
    const button = actionButton(undone ? "Redo" : "Undo", async () => {
      if (button.disabled) return;
      button.disabled = true;
      await rewrite(m, item, undone ? change.redo : change.undo, undone
        ? `Saved the new translation of entry ${m.entry_id} again.`
        : `Restored the previous translation of entry ${m.entry_id}.`, { ...change, undone: !undone });
    });
    parts.push(button);
  }
  status.replaceChildren(...parts);
  renderHistory(item, history);
  (change && !change.undone ? parts[1] : text).focus();
}

// Undo goes back to the answer before the edit (the server's undo, approvals and all);
// Redo writes the edited text again. Each names the text it was made against, so a
// repeated or late request is refused (409) rather than applied twice.
async function rewrite(m, item, runs, message, change) {
  const status = item.querySelector(".edit-status");
  const back = change.undone;
  try {
    const history = await api(entryUrl(m, back ? "/undo" : "/revise"), {
      method: "POST", headers: writeHeaders(),
      body: JSON.stringify(back ? { locale: m.target.locale, base: m.target.runs }
        : { locale: m.target.locale, runs, base: m.target.runs }),
    });
    updated(m, item, history, message, change);
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

// A write asked for without a token: a small form in the card asks for it, then goes on.
function askToken(item, idBase, then) {
  item.querySelector(".token-form")?.remove();
  const cancel = el("button", { type: "button" }, "Cancel");
  const form = el("form", { class: "token-form edit-form" }, el("div", { class: "row" }, el("button", { type: "submit" }, "Continue"), cancel));
  const input = tokenField(form, idBase);
  cancel.addEventListener("click", () => { form.remove(); item.focus(); });
  form.addEventListener("submit", (e) => { e.preventDefault(); keepToken(input); form.remove(); then(); });
  item.querySelector(".edit-status").before(form);
  input.focus();
}

async function deleteMatch(m, item) {
  const status = item.querySelector(".edit-status");
  if (!$("write-token").value.trim()) { askToken(item, `delete-${m.entry_id}`, () => deleteMatch(m, item)); return; }
  try {
    const sure = await confirmDialog("Delete this translation?", [
      el("p", {}, "It is removed from the memory for every user; right afterwards you can undo."),
      el("p", {}, `${m.source.text} → ${m.target.text}`)], "Delete");
    if (!sure) return;
    const entry = await api(entryUrl(m));
    await api(entryUrl(m), { method: "DELETE", headers: writeHeaders() });
    // Undo writes the entry back as it was read, history and all (under a new id), once.
    const more = item.querySelector(".more");
    const undo = actionButton("Undo", async () => {
      if (undo.disabled) return;
      undo.disabled = true;
      try {
        delete entry.id;
        const added = await api(entryUrl({ memory: m.memory }), { method: "POST", headers: writeHeaders(), body: JSON.stringify(entry) });
        m.entry_id = added.entries[0].id;
        status.replaceChildren(el("span", { tabindex: "-1" }, `Restored as entry ${m.entry_id}.`));
        more.hidden = false;
        status.firstChild.focus();
      } catch (err) { undo.disabled = false; showError(status, err); }
    });
    more.hidden = true;
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
  results.setAttribute("aria-busy", "true");
  try {
    const page = await api(`/v1/search?${new URLSearchParams(params)}`);
    searchOffset = offset;
    pager.hidden = !(offset > 0 || page.next_offset !== null);
    $("search-previous").disabled = offset === 0;
    $("search-next").disabled = page.next_offset === null;
    $("search-next").dataset.offset = page.next_offset ?? "";
    if (page.hits.length === 0) {
      results.replaceChildren();
      $("search-count").textContent = "Nothing found.";
      return;
    }
    $("search-count").textContent = `Hits ${offset + 1}–${offset + page.hits.length}${page.next_offset === null ? "" : " (more on the next page)"}`;
    results.replaceChildren(
      el("ol", { class: "hits", start: String(offset + 1) }, ...page.hits.map((h) => el("li", {},
        snippet(h.snippet),
        ...h.translations.map((t) => el("div", { class: "translation" }, `${t.locale}: ${t.text}`)),
        el("div", { class: "hint origin" }, [provenance({ ...h, last_approved: "" }),
          `${h.approvals} approval${h.approvals === 1 ? "" : "s"}`].filter(Boolean).join(" · "))))));
  } catch (e) { pager.hidden = true; $("search-count").textContent = ""; showError(results, e); }
  finally { results.removeAttribute("aria-busy"); }
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

// The locale lists from the memory's pairs: `stats` is /v1/stats's answer, the pairs
// the page's HTML carries, or those kept from the last visit (a server whose reads need
// a token sends none with the HTML), so the form is usable before /v1/stats answers.
function showLocales(stats, wanted) {
  pairs = stats.pairs;
  const sources = [...new Set(pairs.map((p) => p.source))];
  const all = [...new Set(pairs.flatMap((p) => [p.source, p.target]))].sort();
  options($("lookup-from"), sources, wanted.from ?? recall("from") ?? sources[0]);
  fillTargets(wanted.to ?? recall("to") ?? undefined);
  options($("search-locale"), all, wanted.locale ?? recall("search-locale") ?? sources[0]);
  options($("search-to"), all, recall("search-to") ?? "");
}

async function loadLocales(wanted = {}) {
  try {
    const stats = await api("/v1/stats");
    remember("pairs", JSON.stringify({ pairs: stats.pairs }));
    $("memory").textContent = `${memoryName ? `${memoryName}: ` : ""}${stats.entries.toLocaleString("en")} entries`;
    showLocales(stats, wanted);
    markUsable();
  } catch (e) {
    $("memory").textContent = /token/.test(e.message) ? `${e.message}: enter one under Write access` : e.message;
  }
}

// Usable: the lookup form can send a lookup, its submit handler attached and From and
// To each holding a locale. The moment it first is, the page marks "cmem-usable" on
// its performance timeline (docs/performance.md, "The page's start").
let listening = false;
function markUsable() {
  if (!listening || !$("lookup-from").value || !$("lookup-to").value) return false;
  if (!performance.getEntriesByName("cmem-usable").length) performance.mark("cmem-usable");
  return true;
}

// The pairs to start with: the HTML's, else the last visit's, else none.
function startPairs() {
  for (const text of [() => $("start").textContent, () => recall("pairs")]) {
    try {
      const start = JSON.parse(text() || "null");
      if (Array.isArray(start?.pairs)) return start;
    } catch { /* a damaged copy: the next, or wait for the server */ }
  }
  return { pairs: [] };
}

async function start() {
  const url = new URLSearchParams(location.search);
  const wanted = { from: url.get("from") ?? undefined, to: url.get("to") ?? undefined, locale: url.get("locale") ?? undefined };
  // The lookup form first: its locales and its keys, before anything is asked of the
  // server (the text field has the focus from its autofocus attribute).
  showLocales(startPairs(), wanted);
  const codes = recall("codes");
  if (codes) $("lookup-codes").value = codes;
  $("lookup-form").addEventListener("submit", (e) => { e.preventDefault(); clearTimeout(typing); lookup(); });
  $("lookup-text").addEventListener("input", (e) => lookupSoon(e.inputType === "insertFromPaste" ? 0 : 300));
  // Enter looks up; Shift+Enter starts a new line.
  $("lookup-text").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); $("lookup-form").requestSubmit(); }
  });
  listening = true;
  const usable = markUsable();

  try { $("write-token").value = sessionStorage.getItem("cmem.token") || ""; } catch { /* no storage */ }
  const named = api("/readyz").then((ready) => {
    memoryName = String(ready.memory || "").split(/[\\/]/).pop().replace(/\.db$/, "");
  }).catch(() => { /* the name is only shown */ });
  const loaded = loadLocales(wanted);

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
  $("confirm").addEventListener("close", settle);
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

  // A link can ask for a lookup (?q=…&from=…&to=…) or a search (?search=…&locale=…),
  // made once the form is usable: at once, or when /v1/stats has filled the locales.
  if (!usable) await loaded;
  if (url.get("q")) { $("lookup-text").value = url.get("q"); $("lookup-form").requestSubmit(); }
  if (url.get("search")) { $("search-words").value = url.get("search"); $("search-form").requestSubmit(); }
  await Promise.all([named, loaded]);
  if (memoryName && /entries$/.test($("memory").textContent) && !$("memory").textContent.startsWith(`${memoryName}:`)) {
    $("memory").textContent = `${memoryName}: ${$("memory").textContent}`;
  }
}

start();
