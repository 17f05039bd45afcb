// compat.js: the compatibility view. One block per case (a request): per op the reference's
// answer, lettered A, B, ... when ops disagree (a definitional difference), and per target what it
// returned, outlined when it departs from its op's reference (a bug).

const SHOW = {
  "": "every case",
  differ: "ops answer differently (definitional differences)",
  deviate: "a target departs from its op's reference (bugs)",
  ambiguous: "ambiguous spec points",
};

// Ops that reject the request agree with each other whatever rule each spec cites.
function answerKey(text) {
  return /^rejects \(/.test(text) ? "rejects" : text;
}

function caseFacts(c) {
  const answers = new Map();
  let deviates = 0;
  let ambiguous = false;
  for (let it = CASE_START[c]; it < CASE_START[c + 1]; it++) {
    const item = ITEMS[it];
    const key = answerKey(S[item[ITEM_AT.expected_text]]);
    if (!answers.has(key)) answers.set(key, answers.size);
    ambiguous = ambiguous || item[ITEM_AT.ambiguous] === 1;
    for (let r = ITEM_START[it]; r < ITEM_START[it + 1]; r++) if (DEVIATES.has(RES[r][RES_AT.status])) deviates++;
  }
  return { answers: answers, differ: answers.size > 1, deviates: deviates, ambiguous: ambiguous };
}

function compatCases(f, show) {
  const shown = [];
  for (let c = 0; c < CASES.length; c++) {
    let hit = false;
    for (let r = ITEM_START[CASE_START[c]]; r < ITEM_START[CASE_START[c + 1]] && !hit; r++) hit = resultMatches(r, f);
    if (!hit) continue;
    const facts = caseFacts(c);
    if (show === "differ" && !facts.differ) continue;
    if (show === "deviate" && !facts.deviates) continue;
    if (show === "ambiguous" && !facts.ambiguous) continue;
    shown.push([c, facts]);
  }
  return bySearchRank(shown, (entry) => entry[0], f);
}

function compatCell(r) {
  const row = RES[r];
  const code = row[RES_AT.status];
  const status = STATUS[code];
  const extra = extraOf(r);
  const deviates = DEVIATES.has(code);
  const label = [el("b", null, LETTER[code]), " " + str(row[RES_AT.actual_text])];
  if (extra.rd !== undefined) label.push(el("div", { class: "reading" }, "reading: " + S[extra.rd]));
  if (deviates) label.push(el("div", { class: "verdict" }, "≠ its reference"));
  const item = ITEMS[row[RES_AT.item]];
  const link = el("a", { href: "#" + hashOf({ view: "matrix", q: caseId(item[ITEM_AT.case]), op: D.ops[item[ITEM_AT.op]],
    open: resultKey(r) }), title: status + ": " + str(row[RES_AT.message]).slice(0, 300) }, label);
  return el("td", { class: "st-" + status + (deviates ? " deviates" : "") }, link);
}

// The header: the op and its reference first (they stay in view, sticky, while the targets
// scroll sideways), then the targets grouped under their adapter, whose name sticks too.
function compatHead(columns) {
  const adapters = [];
  for (const t of columns) {
    const [adapter, ...rest] = TARGETS[t].id.split("/");
    if (!adapters.length || adapters[adapters.length - 1].name !== adapter) adapters.push({ name: adapter, targets: [] });
    adapters[adapters.length - 1].targets.push([t, rest]);
  }
  const top = el("tr", null, [
    el("th", { scope: "col", rowspan: "2", class: "op" }, "op"),
    el("th", { scope: "col", rowspan: "2", class: "ref" }, "reference (the op's spec)"),
    adapters.map((a) => el("th", { scope: "colgroup", colspan: String(a.targets.length), class: "adapter" },
      el("span", { class: "adapter-name" }, a.name))),
  ]);
  const second = el("tr", null, adapters.map((a) => a.targets.map(([t, rest]) => {
    const target = TARGETS[t];
    return el("th", { scope: "col", class: "target", title: target.id + " — " + target.backend + " " + target.version },
      rest.map((p, i) => [i ? el("br") : null, el("span", null, p)]));
  })));
  return [top, second];
}

function compatBlock(c, facts, columns) {
  const kase = CASES[c];
  const badges = [];
  if (facts.differ) badges.push(el("span", { class: "flag differ" }, "ops answer differently: " + facts.answers.size + " answers"));
  if (facts.deviates) badges.push(el("span", { class: "flag deviate" }, facts.deviates + " result(s) depart from their op's reference"));
  if (facts.ambiguous) badges.push(el("span", { class: "flag ambiguous" }, "ambiguous spec point"));
  const head = compatHead(columns);
  const rows = [];
  for (let it = CASE_START[c]; it < CASE_START[c + 1]; it++) {
    const item = ITEMS[it];
    const group = facts.answers.get(answerKey(S[item[ITEM_AT.expected_text]]));
    const cells = new Map();
    for (let r = ITEM_START[it]; r < ITEM_START[it + 1]; r++) cells.set(RES[r][RES_AT.target], r);
    rows.push(el("tr", null, [
      el("th", { scope: "row", class: "op" }, el("code", null, D.ops[item[ITEM_AT.op]])),
      el("td", { class: "ref" + (facts.differ ? " g" + (group % 6) : "") },
        [facts.differ ? el("b", { class: "group" }, String.fromCharCode(65 + group) + " ") : null,
        str(item[ITEM_AT.expected_text])]),
      columns.map((t) => (cells.has(t) ? compatCell(cells.get(t)) : el("td", { class: "none" }, "·"))),
    ]));
  }
  return el("article", { class: "case-block" + (facts.differ ? " differ" : "") }, [
    el("h3", null, [el("code", null, S[kase.id]), kase.t >= 0 ? " — " + S[kase.t] : ""]),
    el("p", { class: "request" }, ["request: ", el("code", null, str(kase.x)), " ", badges]),
    kase.n >= 0 ? el("p", { class: "note" }, S[kase.n]) : null,
    el("div", { class: "wide" }, el("table", { class: "grid compat-table" }, [el("thead", null, head), el("tbody", null, rows)])),
  ]);
}

function renderCompat(f) {
  const container = document.getElementById("compat");
  const shown = compatCases(f, state.show || "");
  const page = currentPage(shown.length, PAGE_CASES);
  const columns = visibleTargets(f);
  const blocks = shown.slice((page - 1) * PAGE_CASES, page * PAGE_CASES).map(([c, facts]) => compatBlock(c, facts, columns));
  if (!blocks.length) blocks.push(el("p", null, "No case matches these filters."));
  container.replaceChildren(pager(shown.length, PAGE_CASES, page, "cases"), ...blocks);
  if (state.show) { // the count under the filters, narrowed to the cases the "show" choice keeps
    let matching = 0;
    for (const [c] of shown) {
      for (let r = ITEM_START[CASE_START[c]]; r < ITEM_START[CASE_START[c + 1]]; r++) if (resultMatches(r, f)) matching++;
    }
    document.getElementById("f-count").textContent = (matching ? formatCount(matching) + " of " +
      formatCount(RES.length) + " results match" : emptyText(state)) + " (in the cases shown)";
  }
}
