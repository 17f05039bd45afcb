// core.js: the embedded data, the view state (mirrored in the URL hash) and the filters.
// Every string from the data reaches the DOM through el() / text nodes, never as markup.

const D = JSON.parse(document.getElementById("report-data").textContent);
const S = D.s;
const STATUS = D.statuses;
const LETTER = D.letters;
const PASS = STATUS.indexOf("pass");
const DEVIATES = new Set(D.groups.deviating);
const RES = D.res;
const ITEMS = D.items;
const CASES = D.cases;
const TARGETS = D.targets;
// The compatibility page's rows (conformance/results/behaviours.py) and the lists of them items fall in.
const BEHAVIOURS = D.behaviours;
const BSETS = D.bsets;
// The compact arrays' fields by name (conformance/report/layout.py): row[RES_AT.status], never row[2].
const RES_AT = D.fields.res;
const ITEM_AT = D.fields.items;
const TIME_AT = D.fields.timing;
const DECIDED_AT = D.fields.decided;
const RUN_AT = D.fields.runs;
const PAGE_ROWS = 100;
const PAGE_CASES = 20;
// Status groups come from the data (conformance.statuses defines them once, for every consumer).
const UNSUPPORTED = STATUS.indexOf("unsupported");
const GROUPS = {
  failing: new Set(D.groups.failing),
  problems: new Set(D.groups.problems),
  deviating: new Set(STATUS.map((_, i) => i).filter((i) => i !== PASS && i !== UNSUPPORTED)),
  nonpass: new Set(STATUS.map((_, i) => i).filter((i) => i !== PASS)),
};
const GROUP_LABELS = {
  failing: "failing (" + D.groups.failing.map((i) => STATUS[i]).join(", ") + "): unexplained",
  problems: "problems (" + D.groups.problems.map((i) => STATUS[i]).join(", ") + ")",
  deviating: "anything but pass or unsupported (known issues too)",
  nonpass: "anything but pass",
};
// The keys of the address (conformance/report/urlkeys.py lists them; docs/report.md describes them).
const KEYS = D.keys;
// Op families (onnx.Split: every version) the op filter takes besides single ops: name -> op indices.
const FAMILIES = D.families;
// What a result's defect can be: the adapter's own code failed, the suite did, or "none" (each
// with its label and meaning: D.defects[name].label).
const DEFECTS = Object.keys(D.defects);
const NO_DEFECT = DEFECTS.indexOf("none");
// A run is green when no result is a problem (what fails a run): the page says so where it matters.
const GREEN = !RES.some((row) => GROUPS.problems.has(row[RES_AT.status]));
// The known issues by id (one id may be recorded by several runs): id -> indices into D.known.
const KNOWN_IDS = new Map();
D.known.forEach((issue, i) => {
  if (!KNOWN_IDS.has(issue.id)) KNOWN_IDS.set(issue.id, []);
  KNOWN_IDS.get(issue.id).push(i);
});
// The tabs the page has (the Versions view is there only for several versions of one backend).
const VIEW_NAMES = Array.from(document.querySelectorAll("nav.tabs a"), (a) => a.dataset.view);

const ITEM_START = new Int32Array(ITEMS.length + 1);
(function index() {
  let r = 0;
  for (let it = 0; it < ITEMS.length; it++) {
    ITEM_START[it] = r;
    while (r < RES.length && RES[r][RES_AT.item] === it) r++;
  }
  ITEM_START[ITEMS.length] = RES.length;
})();
const CASE_START = new Int32Array(CASES.length + 1);
(function indexCases() {
  let it = 0;
  for (let c = 0; c < CASES.length; c++) {
    CASE_START[c] = it;
    while (it < ITEMS.length && ITEMS[it][ITEM_AT.case] === c) it++;
  }
  CASE_START[CASES.length] = ITEMS.length;
})();

function el(name, attrs, children) {
  const node = document.createElement(name);
  if (attrs) {
    for (const key of Object.keys(attrs)) {
      const value = attrs[key];
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else node.setAttribute(key, String(value));
    }
  }
  append(node, children);
  return node;
}

function append(node, children) {
  if (children === null || children === undefined) return;
  if (Array.isArray(children)) children.forEach((child) => append(node, child));
  else if (children instanceof Node) node.appendChild(children);
  else node.appendChild(document.createTextNode(String(children)));
}

function str(index) {
  return index >= 0 ? S[index] : "";
}

function caseId(c) {
  return S[CASES[c].id];
}

function resultKey(r) {
  const row = RES[r];
  const item = ITEMS[row[RES_AT.item]];
  return caseId(item[ITEM_AT.case]) + "::" + D.ops[item[ITEM_AT.op]] + "@" + TARGETS[row[RES_AT.target]].id;
}

// Result r's extra fields (only some results have them), or one shared empty object.
const NO_EXTRA = Object.freeze({});
function extraOf(r) {
  const at = RES[r][RES_AT.extra];
  return at >= 0 ? D.extra[at] : NO_EXTRA;
}

let keyIndex = null;
function findResult(key) {
  if (!keyIndex) {
    keyIndex = new Map();
    for (let r = 0; r < RES.length; r++) keyIndex.set(resultKey(r), r);
  }
  const found = keyIndex.get(key);
  return found === undefined ? -1 : found;
}

function badge(status) {
  const s = STATUS[status];
  return el("span", { class: "badge st-" + s }, [el("b", null, LETTER[status]), " " + s]);
}

function formatCount(n) {
  return n.toLocaleString("en-US");
}

// ---- state <-> URL hash ----------------------------------------------------------------------

let state = {};

// The values each filter can take: a link with any other (a typo, an op of another corpus)
// is shown as ignored instead of filtering everything out.
function allowedValues(key) {
  switch (key) {
    case "op": return D.ops.concat(Object.keys(FAMILIES));
    case "tag": return D.tags;
    case "behaviour": return BEHAVIOURS.map((b) => b.slug);
    case "dtype": return D.dtypes;
    case "status": return STATUS.concat(Object.keys(GROUPS));
    case "target": return TARGETS.map((t) => t.id);
    case "known": return Array.from(KNOWN_IDS.keys());
    case "defect": return DEFECTS;
    default: return null;
  }
}

let ignored = [];

function readHash() {
  const params = new URLSearchParams(location.hash.replace(/^#/, ""));
  const read = {};
  ignored = [];
  for (const key of KEYS) {
    const value = params.get(key);
    if (!value) continue;
    const allowed = allowedValues(key);
    if (allowed && !allowed.includes(value)) ignored.push(key + "=" + value);
    else read[key] = value;
  }
  if (!VIEW_NAMES.includes(read.view)) {
    const filtered = KEYS.some((k) => k !== "view" && read[k]);
    read.view = filtered ? "matrix" : "summary";
  }
  return read;
}

function hashOf(s) {
  const params = new URLSearchParams();
  for (const key of KEYS) {
    const value = s[key];
    if (!value || (key === "view" && value === "summary") || (key === "page" && value === "1")) continue;
    params.set(key, value);
  }
  return params.toString();
}

function writeHash() {
  const wanted = hashOf(state);
  if (location.hash.replace(/^#/, "") === wanted) return;
  const url = location.pathname + location.search + (wanted ? "#" + wanted : "");
  try {
    history.replaceState(null, "", url);
  } catch (error) {
    location.hash = wanted;
  }
}

function setState(changes) {
  const resetsPage = Object.keys(changes).some((k) => k !== "page" && k !== "open");
  Object.assign(state, changes);
  for (const key of KEYS) if (!state[key]) delete state[key];
  if (resetsPage && !("page" in changes)) delete state.page;
  writeHash();
  renderAll();
}

// ---- filters -----------------------------------------------------------------------------------

// The filters, in the order the controls show them (urlkeys.FILTERS in Python).
const DIMENSIONS = D.filters;
// Each dimension's place in dimensionMatches' answer: m[DIM.op].
const DIM = Object.fromEntries(DIMENSIONS.map((name, i) => [name, i]));
const lowerStrings = new Array(S.length);
const itemTexts = new Array(ITEMS.length);

function lower(index) {
  if (index < 0) return "";
  let value = lowerStrings[index];
  if (value === undefined) value = lowerStrings[index] = S[index].toLowerCase();
  return value;
}

function itemText(it) {
  let value = itemTexts[it];
  if (value === undefined) {
    const item = ITEMS[it];
    const kase = CASES[item[ITEM_AT.case]];
    const parts = [S[kase.id], str(kase.t), D.ops[item[ITEM_AT.op]], str(kase.x), str(item[ITEM_AT.expected_text]),
      D.dtypes[kase.d]];
    kase.g.forEach((g) => parts.push(D.tags[g]));
    value = itemTexts[it] = parts.join("\n").toLowerCase();
  }
  return value;
}

// The filter as indices: -1 for "any"; op and status as sets of codes, or null for "any".
function compileFilter(s) {
  const status = !s.status ? null : GROUPS[s.status] || new Set([STATUS.indexOf(s.status)]);
  return {
    ops: !s.op ? null : new Set(FAMILIES[s.op] || [D.ops.indexOf(s.op)]),
    tag: s.tag ? D.tags.indexOf(s.tag) : -1,
    behaviour: s.behaviour ? BEHAVIOURS.findIndex((b) => b.slug === s.behaviour) : -1,
    dtype: s.dtype ? D.dtypes.indexOf(s.dtype) : -1,
    target: s.target ? TARGETS.findIndex((t) => t.id === s.target) : -1,
    status: status,
    known: s.known ? new Set(KNOWN_IDS.get(s.known) || []) : null,
    defect: s.defect ? DEFECTS.indexOf(s.defect) : -1,
    terms: (s.q || "").toLowerCase().split(/\s+/).filter(Boolean),
    phrase: phraseOf(s.q),
  };
}

// The search as a phrase: its words in order, bounded by non-word characters, so that
// "7 elements into 3 pieces" is not found inside "17 elements into 3 pieces".
function phraseOf(q) {
  const words = (q || "").toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return null;
  const escaped = words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("\\s+");
  return new RegExp("(?:^|[^a-z0-9])" + escaped + "(?:$|[^a-z0-9])");
}

// How well case c matches the search, best first: 0 its title or id is the search, 1 its title
// holds it as a phrase, 2 its id, request or tags hold the phrase, 3 only its words match.
// The matrix and the compatibility view list the best first, in corpus order within each rank.
function searchRank(c, f) {
  if (!f.phrase) return 3;
  const kase = CASES[c];
  const title = lower(kase.t);
  const query = f.terms.join(" ");
  if (title.replace(/\s+/g, " ").trim() === query || lower(kase.id) === query) return 0;
  if (f.phrase.test(title)) return 1;
  const text = [lower(kase.id), lower(kase.x), kase.g.map((g) => D.tags[g]).join(" ")].join("\n");
  return f.phrase.test(text) ? 2 : 3;
}

// `entries` ordered by the search rank of each one's case (stable: corpus order within a rank).
function bySearchRank(entries, caseOf, f) {
  if (!f.phrase) return entries;
  const ranks = new Map();
  const rank = (entry) => {
    const c = caseOf(entry);
    if (!ranks.has(c)) ranks.set(c, searchRank(c, f));
    return ranks.get(c);
  };
  return entries.slice().sort((a, b) => rank(a) - rank(b));
}

function textMatches(r, terms) {
  if (!terms.length) return true;
  const row = RES[r];
  const text = itemText(row[RES_AT.item]);
  const message = lower(row[RES_AT.message]);
  const outcome = lower(row[RES_AT.actual_text]);
  return terms.every((t) => text.includes(t) || message.includes(t) || outcome.includes(t));
}

// The known issue result r was matched by (an index into D.known), or -1.
function knownOf(r) {
  const extra = extraOf(r);
  return extra.ki !== undefined ? extra.ki : -1;
}

// Result r's defect, an index into DEFECTS: the adapter's, the harness's, or none.
function defectOf(r) {
  const extra = extraOf(r);
  return extra.df ? DEFECTS.indexOf(extra.df) : NO_DEFECT;
}

// Which filter dimensions result r satisfies, as booleans in DIMENSIONS order.
function dimensionMatches(r, f) {
  const row = RES[r];
  const item = ITEMS[row[RES_AT.item]];
  const kase = CASES[item[ITEM_AT.case]];
  const m = new Array(DIMENSIONS.length);
  m[DIM.op] = f.ops === null || f.ops.has(item[ITEM_AT.op]);
  m[DIM.tag] = f.tag < 0 || kase.g.includes(f.tag);
  m[DIM.behaviour] = f.behaviour < 0 || BSETS[item[ITEM_AT.behaviours]].includes(f.behaviour);
  m[DIM.dtype] = f.dtype < 0 || kase.d === f.dtype;
  m[DIM.status] = f.status === null || f.status.has(row[RES_AT.status]);
  m[DIM.target] = f.target < 0 || row[RES_AT.target] === f.target;
  m[DIM.known] = f.known === null || f.known.has(knownOf(r));
  m[DIM.defect] = f.defect < 0 || defectOf(r) === f.defect;
  return m;
}

function resultMatches(r, f) {
  return dimensionMatches(r, f).every(Boolean) && textMatches(r, f.terms);
}

// Counts of results per value of each dimension, under every *other* filter (faceted search).
function facetCounts(f) {
  const counts = {
    op: new Int32Array(D.ops.length),
    tag: new Int32Array(D.tags.length),
    behaviour: new Int32Array(BEHAVIOURS.length),
    dtype: new Int32Array(D.dtypes.length),
    status: new Int32Array(STATUS.length),
    target: new Int32Array(TARGETS.length),
    known: new Int32Array(D.known.length),
    defect: new Int32Array(DEFECTS.length),
  };
  let total = 0;
  for (let r = 0; r < RES.length; r++) {
    if (!textMatches(r, f.terms)) continue;
    const m = dimensionMatches(r, f);
    const misses = m.filter((x) => !x).length;
    if (misses > 1) continue;
    const row = RES[r];
    const item = ITEMS[row[RES_AT.item]];
    const kase = CASES[item[ITEM_AT.case]];
    if (misses === 0) total++;
    if (misses === 0 || !m[DIM.op]) counts.op[item[ITEM_AT.op]]++;
    if (misses === 0 || !m[DIM.tag]) kase.g.forEach((g) => counts.tag[g]++);
    if (misses === 0 || !m[DIM.behaviour]) BSETS[item[ITEM_AT.behaviours]].forEach((b) => counts.behaviour[b]++);
    if (misses === 0 || !m[DIM.dtype]) counts.dtype[kase.d]++;
    if (misses === 0 || !m[DIM.status]) counts.status[row[RES_AT.status]]++;
    if (misses === 0 || !m[DIM.target]) counts.target[row[RES_AT.target]]++;
    if ((misses === 0 || !m[DIM.known]) && knownOf(r) >= 0) counts.known[knownOf(r)]++;
    if (misses === 0 || !m[DIM.defect]) counts.defect[defectOf(r)]++;
  }
  counts.total = total;
  return counts;
}

// What an empty selection means, in words. "0 of 21,153" under status=fail reads like a count of
// failures; on a green run the answer is that no result failed, and the page says so.
function emptyText(s) {
  const what = [];
  if (s.status) {
    const codes = Array.from(GROUPS[s.status] || [STATUS.indexOf(s.status)]);
    const names = codes.map((i) => STATUS[i]);
    what.push("has status " + (names.length > 1 ? names.slice(0, -1).join(", ") + " or " + names[names.length - 1] : names[0]));
  }
  if (s.known) what.push("is explained by known issue " + s.known);
  if (s.defect) {
    const meaning = D.defects[s.defect].meaning;
    what.push(s.defect === "none" ? "is " + meaning : (/^[aeiou]/.test(meaning) ? "is an " : "is a ") + meaning);
  }
  const where = ["op", "tag", "behaviour", "dtype", "target", "q"].filter((k) => s[k]).map((k) => k + "=" + s[k]);
  let text = !what.length ? "No result matches " + (where.join(", ") || "these filters")
    : "No result" + (where.length ? " with " + where.join(", ") : "") + " " + what.join(" and ");
  const statuses = s.status ? Array.from(GROUPS[s.status] || [STATUS.indexOf(s.status)]) : [];
  const asksForProblems = statuses.some((i) => GROUPS.problems.has(i)) || (s.defect && s.defect !== "none");
  if (GREEN && asksForProblems) text += " (the run is green)";
  return text;
}
