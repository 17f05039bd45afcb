// details.js: one result's details, built when it is opened: parameters, outputs, the value diff
// with bit patterns, the backend's message, the known issue, timing and both reproducers.

const LAYOUTS = { float16: [1, 5, 10], bfloat16: [1, 8, 7], float32: [1, 8, 23], float64: [1, 11, 52] };
const PART_OF = { complex64: "float32", complex128: "float64" };
const MIB = 1024 * 1024;

function shapeText(shape) {
  return "[" + shape.join(",") + "]";
}

function section(title, content) {
  return el("section", { class: "part" }, [el("h4", null, title), content]);
}

function definitionList(pairs) {
  const dl = el("dl");
  for (const [label, value] of pairs) {
    if (value === null || value === undefined || value === "") continue;
    dl.appendChild(el("dt", null, label));
    dl.appendChild(el("dd", null, value));
  }
  return dl;
}

function safeLink(url) {
  const value = String(url || "");
  if (/^https?:\/\//i.test(value)) {
    return el("a", { href: value, rel: "noopener noreferrer", target: "_blank" }, value);
  }
  return el("span", null, value);
}

function caseSection(kase) {
  const p = kase.p;
  const data = p.data || {};
  const graph = p.graph || {};
  const defaults = D.gd || {};
  const shown = (value) => value !== null && typeof value === "object"
    ? "{" + Object.keys(value).map((k) => k + ": " + value[k]).join(", ") + "}" : String(value);
  const graphItems = Object.keys(graph).map((k) =>
    el(JSON.stringify(defaults[k]) !== JSON.stringify(graph[k]) ? "mark" : "span", null, k + "=" + shown(graph[k]) + " "));
  const form = p.form || {};
  return section("Case", definitionList([
    ["id", el("code", null, S[kase.id])],
    ["title", str(kase.t)],
    ["note", str(kase.n)],
    ["data", shapeText(data.shape || []) + " " + data.dtype + (data.fill ? ", fill " + JSON.stringify(data.fill) : "")],
    ...(p.slice ? [["request", "slice " + JSON.stringify(p.slice)]] : [
      ["axis", p.axis === null || p.axis === undefined ? "(the op's default)" : String(p.axis)],
      ["request", form.kind + " " + JSON.stringify(form.value)]]),
    ["graph", graphItems],
    ["tags", kase.g.map((g) => D.tags[g]).join(", ")],
    ["source", p.source],
    ["location", el("code", null, p.location || "")],
  ]));
}

function outputsTable(expected, actual, mismatchAt, ran) {
  const n = Math.max(expected.length, actual.length);
  const rows = [];
  for (let i = 0; i < n; i++) {
    const e = expected[i];
    const a = actual[i];
    // no actual outputs at all: the backend was not run (unsupported) or raised; nothing to compare
    const differs = ran && (!e || !a || shapeText(e.shape) !== shapeText(a.shape) || e.dtype !== a.dtype || mismatchAt === i);
    rows.push(el("tr", { class: differs ? "differs" : null }, [
      el("td", null, String(i)),
      el("td", null, e ? shapeText(e.shape) : "—"), el("td", null, e ? e.dtype : ""),
      el("td", null, a ? shapeText(a.shape) : ran ? "—" : "not run"), el("td", null, a ? a.dtype : ""),
      el("td", null, !ran ? "" : differs ? "≠" : "="),
    ]));
  }
  const head = el("tr", null, ["output", "expected shape", "dtype", "actual shape", "dtype", ""].map(
    (h) => el("th", { scope: "col" }, h)));
  return el("table", { class: "outputs" }, [el("thead", null, head), el("tbody", null, rows)]);
}

function readingText(reading, dtype) {
  if (reading.rejected) return "rejects (" + reading.rejected.rule + ": " + reading.rejected.reason + ")";
  return (reading.outputs || []).length + " outputs: " + (reading.outputs || []).map((o) => shapeText(o.shape)).join(" ");
}

function outputsSection(row, item, extra) {
  // a result decided by a later run of its case shows that run's expectation
  const expected = (extra.re ? D.exp[extra.re[DECIDED_AT.expected]] : D.exp[item[ITEM_AT.expected]]) || {};
  const actual = D.act[row[RES_AT.actual]] || {};
  const parts = [];
  const answer = extra.re ? extra.re[DECIDED_AT.expected_text] : item[ITEM_AT.expected_text];
  const summary = "expected " + str(answer) + "; got " + str(row[RES_AT.actual_text]);
  parts.push(el("p", null, summary));
  if (extra.sh) {
    parts.push(el("p", { class: "rule" }, "Values were not judged: this route infers output shapes and " +
      "computes no values, so acceptance, output count, shapes and dtypes are what it is judged on."));
  }
  if (expected.rejected) {
    parts.push(el("p", { class: "rule" }, "The spec rejects this input: " + expected.rejected.rule + " — " +
      expected.rejected.reason));
  }
  if (expected.readings) {
    parts.push(el("p", null, "Ambiguous spec point: " + (expected.ambiguity || "")));
    const matched = extra.rd !== undefined ? S[extra.rd] : null;
    parts.push(el("ul", null, expected.readings.map((reading) => el("li", { class: reading.label === matched ? "matched" : null },
      [el("b", null, reading.label), ": " + readingText(reading), reading.label === matched ? " ← matched" : ""]))));
  }
  if (expected.outputs || actual.outputs) {
    const mismatchAt = extra.mm && extra.mm.output !== undefined ? extra.mm.output : null;
    parts.push(outputsTable(expected.outputs || [], actual.outputs || [], mismatchAt, !!actual.outputs));
  }
  if (actual.raised) {
    parts.push(el("p", null, ["The backend raised ", el("code", null, actual.raised.type), " in " + actual.raised.phase + ":"]));
    parts.push(el("pre", { class: "message" }, actual.raised.message));
  }
  return section("Outputs: expected and actual", parts);
}

function bitsOf(text) {
  const match = /^(.*) \(((?:0x[0-9a-f]+ ?)+)\)$/i.exec(text);
  if (!match) return { value: text, words: [] };
  return { value: match[1], words: match[2].trim().split(" ") };
}

function binary(word) {
  const width = (word.length - 2) * 4;
  return BigInt(word).toString(2).padStart(width, "0");
}

// A bit pattern with the bits that differ from `other` marked, split into sign | exponent | mantissa.
function markedBits(word, other, dtype) {
  const layout = LAYOUTS[PART_OF[dtype] || dtype];
  const mine = binary(word);
  const theirs = other ? binary(other) : mine;
  const node = el("span", { class: "bits" });
  let start = 0;
  const fields = layout && layout.reduce((a, b) => a + b, 0) === mine.length ? layout : [mine.length];
  fields.forEach((length, f) => {
    if (f) node.appendChild(document.createTextNode(" "));
    for (let i = start; i < start + length; i++) {
      const bit = mine[i];
      append(node, bit !== theirs[i] ? el("mark", null, bit) : bit);
    }
    start += length;
  });
  return node;
}

function mismatchSection(mm, dtype) {
  const parts = [el("p", null, [el("b", null, mm.what), ": " + mm.message])];
  if (mm.differing) parts.push(el("p", null, formatCount(mm.differing) + " differing element(s); the first " +
    (mm.first || []).length + ":"));
  if (mm.first && mm.first.length) {
    // values without a bit pattern (strings) get no bit columns
    const withBits = mm.first.some((d) => bitsOf(d.expected).words.length || bitsOf(d.actual).words.length);
    const rows = mm.first.map((d) => {
      const e = bitsOf(d.expected);
      const a = bitsOf(d.actual);
      const bits = (words, others) => words.map((w, i) => [el("code", null, w), " ", markedBits(w, others[i], dtype), el("br")]);
      return el("tr", null, [
        el("td", null, mm.output === null || mm.output === undefined ? "" : String(mm.output)),
        el("td", null, el("code", null, shapeText(d.index))),
        el("td", null, e.value), el("td", null, a.value),
        withBits ? [el("td", null, bits(e.words, a.words)), el("td", null, bits(a.words, e.words))] : null,
      ]);
    });
    const titles = ["output", "index", "expected", "actual"];
    if (withBits) titles.push("expected bits", "actual bits (differing marked)");
    const head = el("tr", null, titles.map((h) => el("th", { scope: "col" }, h)));
    parts.push(el("table", { class: "elements" }, [el("thead", null, head), el("tbody", null, rows)]));
  }
  return section("Value diff", parts);
}

function median(values) {
  const sorted = values.slice().sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function ms(value) {
  return value === null || value === undefined ? "–" : value + " ms";
}

function dataBytes(kase) {
  const data = kase.p.data || {};
  const size = D.itemsize[data.dtype] || 0;
  return size ? (data.shape || []).reduce((a, b) => a * b, 1) * size : 0;
}

function timingSection(row, kase) {
  const t = row[RES_AT.timing];
  if (!t) return section("Timing", el("p", null, "Not timed (the backend did not run it)."));
  const steady = t[TIME_AT.steady];
  const mid = steady.length ? median(steady) : null;
  const pairs = [["build", ms(t[TIME_AT.build])], ["compile", ms(t[TIME_AT.compile])], ["first run", ms(t[TIME_AT.first])],
    ["steady runs", steady.length ? steady.map((v) => v + " ms").join(", ") : "–"],
    ["steady median", mid === null ? "–" : ms(+mid.toPrecision(4))]];
  const bytes = dataBytes(kase);
  if (bytes >= MIB && mid) {
    const gbps = (2 * bytes) / (mid / 1000) / 1e9;
    const copies = TARGETS[row[RES_AT.target]].memcpy.filter((m) => m.bytes && m.gbps);
    let near = null;
    for (const m of copies) {
      if (!near || Math.abs(Math.log(m.bytes / bytes)) < Math.abs(Math.log(near.bytes / bytes))) near = m;
    }
    pairs.push(["effective bandwidth", gbps.toFixed(2) + " GB/s for " + (bytes / MIB).toFixed(1) + " MiB" +
      (near ? " (memory copy: " + near.gbps + " GB/s, " + Math.round((100 * gbps) / near.gbps) + "%)" : "")]);
  }
  return section("Timing", definitionList(pairs));
}

function copyBlock(label, text) {
  const pre = el("pre", { class: "code" }, el("code", null, text));
  const button = el("button", { type: "button", class: "copy" }, "copy " + label);
  button.addEventListener("click", () => {
    const select = () => {
      const range = document.createRange();
      range.selectNodeContents(pre);
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      button.textContent = "selected: press Ctrl+C";
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(() => { button.textContent = "copied"; }, select);
    } else select();
  });
  return el("div", { class: "copyable" }, [button, pre]);
}

function reproducerSection(rp) {
  const parts = [el("p", null, "Rerun just this item on this target:"), copyBlock("command", str(rp.c))];
  if (rp.p) {
    parts.push(el("p", null, "Standalone, with the backend alone (no conformance suite needed):"));
    parts.push(copyBlock("Python", rp.p.map(str).join("'''")));
  } else parts.push(el("p", null, "The adapter writes no standalone Python snippet."));
  return section("Reproduce", parts);
}

// A case with runs: every run on the model built once, with its own verdict.
function runsSection(runs) {
  const rows = runs.map((run) => el("tr", null, [
    el("td", null, str(run[RUN_AT.label])), el("td", null, badge(run[RUN_AT.status])), el("td", null, str(run[RUN_AT.message])),
  ]));
  const head = el("tr", null, ["run", "status", "message"].map((h) => el("th", { scope: "col" }, h)));
  return section("Runs on one built model (the result is the worst; outputs below are that run's)",
    el("table", { class: "runs" }, [el("thead", null, head), el("tbody", null, rows)]));
}

function detailPanel(r) {
  const row = RES[r];
  const item = ITEMS[row[RES_AT.item]];
  const kase = CASES[item[ITEM_AT.case]];
  const extra = extraOf(r);
  const key = resultKey(r);
  const dtype = (kase.p.data || {}).dtype;
  const panel = el("div", { class: "panel", tabindex: "-1", role: "region", "aria-label": "details of " + key, "data-key": key });
  panel.appendChild(el("h3", null, [badge(row[RES_AT.status]), " ", el("code", null, key)]));
  panel.appendChild(el("pre", { class: "message" }, str(row[RES_AT.message])));
  if (extra.df) panel.appendChild(el("p", { class: "defect" }, D.defects[extra.df].meaning + "."));
  if (extra.ki !== undefined) {
    const issue = D.known[extra.ki];
    panel.appendChild(section("Known issue", definitionList([["id", el("code", null, issue.id || "")],
      ["reason", issue.reason], ["link", safeLink(issue.link)], ["listed in", issue.source]])));
  }
  if (extra.ru) panel.appendChild(runsSection(extra.ru));
  panel.appendChild(outputsSection(row, item, extra));
  if (extra.mm && extra.mm.what === "values") panel.appendChild(mismatchSection(extra.mm, dtype));
  else if (extra.mm) panel.appendChild(section("Difference", el("p", null, [el("b", null, extra.mm.what), ": " + extra.mm.message])));
  if (extra.rp) panel.appendChild(reproducerSection(extra.rp));
  panel.appendChild(caseSection(kase));
  panel.appendChild(timingSection(row, kase));
  if (extra.w) {
    const w = extra.w;
    panel.appendChild(section("Worker", definitionList([["pid", String(w.pid)],
      ["peak memory", w.peak_rss_kib ? (w.peak_rss_kib / 1024).toFixed(0) + " MiB" : ""],
      ["elapsed for the item", w.elapsed_ms === undefined ? "" : w.elapsed_ms + " ms"]])));
  }
  const compare = el("a", { href: "#" + hashOf({ view: "compat", q: caseId(item[ITEM_AT.case]) }) },
    "Compare this request across ops and targets");
  panel.appendChild(el("p", null, compare));
  return panel;
}
