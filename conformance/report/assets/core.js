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
const PAGE_ROWS = 100;
const PAGE_CASES = 20;
// Status groups come from the data (conformance.statuses defines them once, for every consumer).
const UNSUPPORTED = STATUS.indexOf("unsupported");
const GROUPS = {
  problems: new Set(D.groups.problems),
  deviating: new Set(STATUS.map((_, i) => i).filter((i) => i !== PASS && i !== UNSUPPORTED)),
  nonpass: new Set(STATUS.map((_, i) => i).filter((i) => i !== PASS)),
};
const GROUP_LABELS = {
  problems: "problems (" + D.groups.problems.map((i) => STATUS[i]).join(", ") + ")",
  deviating: "anything but pass or unsupported (known issues too)",
  nonpass: "anything but pass",
};
const KEYS = ["view", "op", "tag", "dtype", "status", "target", "known", "q", "show", "page", "open"];
// The known issues by id (one id may be recorded by several runs): id -> indices into D.known.
const KNOWN_IDS = new Map();
D.known.forEach((issue, i) => {
  if (!KNOWN_IDS.has(issue.id)) KNOWN_IDS.set(issue.id, []);
  KNOWN_IDS.get(issue.id).push(i);
});
// The tabs the page has (the Versions view is there only for several versions of one backend).
const VIEW_NAMES = Array.from(document.querySelectorAll("nav.tabs a"), (a) => a.dataset.view);

// Result r's columns: [item, target, status, message, actual, actual text, timing, extra]
const ITEM_START = new Int32Array(ITEMS.length + 1);
(function index() {
  let r = 0;
  for (let it = 0; it < ITEMS.length; it++) {
    ITEM_START[it] = r;
    while (r < RES.length && RES[r][0] === it) r++;
  }
  ITEM_START[ITEMS.length] = RES.length;
})();
const CASE_START = new Int32Array(CASES.length + 1);
(function indexCases() {
  let it = 0;
  for (let c = 0; c < CASES.length; c++) {
    CASE_START[c] = it;
    while (it < ITEMS.length && ITEMS[it][0] === c) it++;
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
  const item = ITEMS[row[0]];
  return caseId(item[0]) + "::" + D.ops[item[1]] + "@" + TARGETS[row[1]].id;
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
    case "op": return D.ops;
    case "tag": return D.tags;
    case "dtype": return D.dtypes;
    case "status": return STATUS.concat(Object.keys(GROUPS));
    case "target": return TARGETS.map((t) => t.id);
    case "known": return Array.from(KNOWN_IDS.keys());
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

const DIMENSIONS = ["op", "tag", "dtype", "status", "target", "known"];
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
    const kase = CASES[item[0]];
    const parts = [S[kase.id], str(kase.t), D.ops[item[1]], str(kase.x), str(item[3]), D.dtypes[kase.d]];
    kase.g.forEach((g) => parts.push(D.tags[g]));
    value = itemTexts[it] = parts.join("\n").toLowerCase();
  }
  return value;
}

// The filter as indices: -1 for "any"; status as a set of status codes or null.
function compileFilter(s) {
  const status = !s.status ? null : GROUPS[s.status] || new Set([STATUS.indexOf(s.status)]);
  return {
    op: s.op ? D.ops.indexOf(s.op) : -1,
    tag: s.tag ? D.tags.indexOf(s.tag) : -1,
    dtype: s.dtype ? D.dtypes.indexOf(s.dtype) : -1,
    target: s.target ? TARGETS.findIndex((t) => t.id === s.target) : -1,
    status: status,
    known: s.known ? new Set(KNOWN_IDS.get(s.known) || []) : null,
    terms: (s.q || "").toLowerCase().split(/\s+/).filter(Boolean),
  };
}

function textMatches(r, terms) {
  if (!terms.length) return true;
  const row = RES[r];
  const text = itemText(row[0]);
  const message = lower(row[3]);
  const outcome = lower(row[5]);
  return terms.every((t) => text.includes(t) || message.includes(t) || outcome.includes(t));
}

// The known issue result r was matched by (an index into D.known), or -1.
function knownOf(r) {
  const extra = RES[r][7] >= 0 ? D.extra[RES[r][7]] : null;
  return extra && extra.ki !== undefined ? extra.ki : -1;
}

// Which filter dimensions result r satisfies, as booleans in DIMENSIONS order.
function dimensionMatches(r, f) {
  const row = RES[r];
  const item = ITEMS[row[0]];
  const kase = CASES[item[0]];
  return [
    f.op < 0 || item[1] === f.op,
    f.tag < 0 || kase.g.includes(f.tag),
    f.dtype < 0 || kase.d === f.dtype,
    f.status === null || f.status.has(row[2]),
    f.target < 0 || row[1] === f.target,
    f.known === null || f.known.has(knownOf(r)),
  ];
}

function resultMatches(r, f) {
  return dimensionMatches(r, f).every(Boolean) && textMatches(r, f.terms);
}

// Counts of results per value of each dimension, under every *other* filter (faceted search).
function facetCounts(f) {
  const counts = {
    op: new Int32Array(D.ops.length),
    tag: new Int32Array(D.tags.length),
    dtype: new Int32Array(D.dtypes.length),
    status: new Int32Array(STATUS.length),
    target: new Int32Array(TARGETS.length),
    known: new Int32Array(D.known.length),
  };
  let total = 0;
  for (let r = 0; r < RES.length; r++) {
    if (!textMatches(r, f.terms)) continue;
    const m = dimensionMatches(r, f);
    const misses = m.filter((x) => !x).length;
    if (misses > 1) continue;
    const row = RES[r];
    const item = ITEMS[row[0]];
    const kase = CASES[item[0]];
    if (misses === 0) total++;
    if (misses === 0 || !m[0]) counts.op[item[1]]++;
    if (misses === 0 || !m[1]) kase.g.forEach((g) => counts.tag[g]++);
    if (misses === 0 || !m[2]) counts.dtype[kase.d]++;
    if (misses === 0 || !m[3]) counts.status[row[2]]++;
    if (misses === 0 || !m[4]) counts.target[row[1]]++;
    if ((misses === 0 || !m[5]) && knownOf(r) >= 0) counts.known[knownOf(r)]++;
  }
  counts.total = total;
  return counts;
}
