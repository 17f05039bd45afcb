// boot.js: the filter controls, the tabs, rendering the current view, and the ready signal.

const controls = {};

function select(key, label) {
  const node = el("select", { id: "f-" + key, name: key, "aria-label": label });
  node.addEventListener("change", () => setState({ [key]: node.value, open: "" }));
  controls[key] = node;
  return el("label", null, [label + " ", node]);
}

function buildControls() {
  const form = document.getElementById("filters");
  const search = el("input", { id: "f-q", type: "search", name: "q", placeholder: "search ids, titles, messages…",
    "aria-label": "text search", autocomplete: "off" });
  let timer = 0;
  search.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => setState({ q: search.value.trim(), open: "" }), 150);
  });
  controls.q = search;
  const clear = el("button", { type: "button", id: "f-clear" }, "clear filters");
  clear.addEventListener("click", () => {
    const cleared = { q: "", show: "", open: "" };
    DIMENSIONS.forEach((key) => { cleared[key] = ""; });
    setState(cleared);
  });
  const show = select("show", "show");
  show.classList.add("compat-only");
  form.addEventListener("submit", (event) => event.preventDefault());
  form.replaceChildren(select("op", "op"), select("tag", "tag"), select("behaviour", "behaviour"),
    select("dtype", "dtype"), select("status", "status"),
    select("target", "target"), select("known", "known issue"), select("defect", "defect"), show,
    el("label", null, ["search ", search]), clear,
    el("span", { id: "f-count", class: "count", "aria-live": "polite" }),
    el("span", { id: "f-note", class: "filter-note", role: "status" }));
}

// Options with their counts under the other filters (zero ones too, so the list never jumps).
function fillSelect(node, entries, current) {
  const options = [el("option", { value: "" }, "any")];
  for (const [value, label, count] of entries) {
    options.push(el("option", { value: value }, label + (count === null ? "" : " (" + formatCount(count) + ")")));
  }
  node.replaceChildren(...options);
  node.value = current || "";
}

function renderControls(f) {
  const counts = facetCounts(f);
  fillSelect(controls.op, opEntries(counts), state.op);
  fillSelect(controls.tag, D.tags.map((t, i) => [t, t, counts.tag[i]]), state.tag);
  fillSelect(controls.behaviour, BEHAVIOURS.map((b, i) => [b.slug, b.title, counts.behaviour[i]]), state.behaviour);
  fillSelect(controls.dtype, D.dtypes.map((t, i) => [t, t, counts.dtype[i]]), state.dtype);
  const statusEntries = STATUS.map((s, i) => [s, LETTER[i] + " " + s, counts.status[i]]);
  for (const group of Object.keys(GROUPS)) {
    let n = 0;
    GROUPS[group].forEach((i) => { n += counts.status[i]; });
    statusEntries.push([group, GROUP_LABELS[group], n]);
  }
  fillSelect(controls.status, statusEntries, state.status);
  fillSelect(controls.target, TARGETS.map((t, i) => [t.id, t.id, counts.target[i]]), state.target);
  fillSelect(controls.known, Array.from(KNOWN_IDS, ([id, indices]) =>
    [id, id, indices.reduce((n, i) => n + counts.known[i], 0)]), state.known);
  fillSelect(controls.defect, DEFECTS.map((d, i) => [d, D.defects[d].label, counts.defect[i]]), state.defect);
  document.getElementById("f-note").textContent = ignored.length
    ? "ignored from the link (no such value in this report): " + ignored.join(", ") : "";
  fillSelect(controls.show, Object.keys(SHOW).filter(Boolean).map((k) => [k, SHOW[k], null]), state.show);
  if (document.activeElement !== controls.q) controls.q.value = state.q || "";
  document.getElementById("f-count").textContent = counts.total ? formatCount(counts.total) + " of " +
    formatCount(RES.length) + " results match" : emptyText(state);
}

// Each op family (every version of an op) just before its versions, then the versions.
function opEntries(counts) {
  const entries = [];
  const seen = new Set();
  D.ops.forEach((op, i) => {
    for (const [family, members] of Object.entries(FAMILIES)) {
      if (!seen.has(family) && members.includes(i)) {
        seen.add(family);
        entries.push([family, family + " (every version)", members.reduce((n, m) => n + counts.op[m], 0)]);
      }
    }
    entries.push([op, op, counts.op[i]]);
  });
  return entries;
}

function showView(view) {
  for (const name of VIEW_NAMES) {
    document.getElementById("view-" + name).hidden = name !== view;
  }
  document.getElementById("controls").hidden = view !== "matrix" && view !== "compat";
  document.body.dataset.view = view;
  document.querySelectorAll("nav.tabs a").forEach((a) => {
    if (a.dataset.view === view) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  });
}

function renderAll() {
  showView(state.view);
  if (state.view !== "matrix" && state.view !== "compat") return;
  const f = compileFilter(state);
  renderControls(f);
  if (state.view === "matrix") renderMatrix(f);
  else renderCompat(f);
  revealOpen = false;
}

// Table headers stick just below the sticky filter bar, whatever height it wraps to.
function trackControlsHeight() {
  const bar = document.getElementById("controls");
  const update = () => document.documentElement.style.setProperty("--sticky-top", bar.offsetHeight + "px");
  if (window.ResizeObserver) new ResizeObserver(update).observe(bar);
  update();
}

function boot() {
  document.body.classList.add("js");
  buildControls();
  trackControlsHeight();
  document.querySelectorAll("nav.tabs a").forEach((a) => {
    a.addEventListener("click", (event) => {
      event.preventDefault();
      setState({ view: a.dataset.view, page: "", open: "" });
    });
  });
  window.addEventListener("hashchange", () => {
    state = readHash();
    revealOpen = true;
    renderAll();
  });
  state = readHash();
  revealOpen = true;
  renderAll();
  document.body.dataset.readyMs = String(Math.round(performance.now()));
  document.body.dataset.ready = "1";
}

boot();
