// matrix.js: items (case, op) by targets, one page of rows at a time; a cell opens its details.

function visibleTargets(f) {
  return f.target >= 0 ? [f.target] : TARGETS.map((_, i) => i);
}

// Items with at least one result that passes every filter, in corpus order (best search matches first).
function matrixRows(f) {
  const rows = [];
  for (let it = 0; it < ITEMS.length; it++) {
    for (let r = ITEM_START[it]; r < ITEM_START[it + 1]; r++) {
      if (resultMatches(r, f)) {
        rows.push(it);
        break;
      }
    }
  }
  return bySearchRank(rows, (it) => ITEMS[it][ITEM_AT.case], f);
}

function pager(total, perPage, page, noun) {
  const pages = Math.max(1, Math.ceil(total / perPage));
  const first = total ? (page - 1) * perPage + 1 : 0;
  const last = Math.min(total, page * perPage);
  const go = (to) => () => setState({ page: String(to), open: "" });
  const button = (label, to, enabled) => {
    const b = el("button", { type: "button", disabled: !enabled, "aria-label": label + " page" }, label);
    b.addEventListener("click", go(to));
    return b;
  };
  return el("div", { class: "pager" }, [
    button("first", 1, page > 1), button("previous", page - 1, page > 1),
    el("span", { class: "range", "aria-live": "polite" },
      formatCount(first) + "–" + formatCount(last) + " of " + formatCount(total) + " " + noun +
      " (page " + page + " of " + pages + ")"),
    button("next", page + 1, page < pages), button("last", pages, page < pages),
  ]);
}

function currentPage(total, perPage) {
  const pages = Math.max(1, Math.ceil(total / perPage));
  const page = parseInt(state.page || "1", 10);
  return Math.min(Math.max(1, isNaN(page) ? 1 : page), pages);
}

function targetHeader(target) {
  const parts = target.id.split("/");
  return el("th", { scope: "col", class: "target", title: target.id + " — " + target.backend + " " + target.version },
    parts.map((p, i) => [i ? el("br") : null, el("span", null, p)]));
}

function openDetail(tr, r, columns) {
  const detail = el("tr", { class: "detail" }, el("td", { colspan: String(columns) }, detailPanel(r)));
  tr.after(detail);
  return detail;
}

function closeDetails(table) {
  table.querySelectorAll("tr.detail").forEach((row) => row.remove());
  table.querySelectorAll("button.cell[aria-expanded=true]").forEach((b) => b.setAttribute("aria-expanded", "false"));
}

function renderMatrix(f) {
  const container = document.getElementById("matrix");
  const rows = matrixRows(f);
  const opened = state.open ? findResult(state.open) : -1;
  if (opened >= 0 && !state.page) {
    const at = rows.indexOf(RES[opened][RES_AT.item]);
    if (at >= 0) state.page = String(Math.floor(at / PAGE_ROWS) + 1);
  }
  const page = currentPage(rows.length, PAGE_ROWS);
  const columns = visibleTargets(f);
  const head = el("tr", null, [
    el("th", { scope: "col", class: "case" }, "case"), el("th", { scope: "col" }, "op"),
    el("th", { scope: "col", class: "ref" }, "reference answer"), columns.map((t) => targetHeader(TARGETS[t])),
  ]);
  const body = el("tbody");
  const table = el("table", { class: "grid", id: "matrix-table" }, [el("thead", null, head), body]);
  let openCell = null;
  for (const it of rows.slice((page - 1) * PAGE_ROWS, page * PAGE_ROWS)) {
    const item = ITEMS[it];
    const kase = CASES[item[ITEM_AT.case]];
    const cells = new Map();
    for (let r = ITEM_START[it]; r < ITEM_START[it + 1]; r++) cells.set(RES[r][RES_AT.target], r);
    const tr = el("tr", { "data-item": String(it) }, [
      el("th", { scope: "row", class: "case" }, [el("code", null, caseId(item[ITEM_AT.case])),
        kase.t >= 0 ? el("div", { class: "title" }, S[kase.t]) : null]),
      el("td", null, el("code", null, D.ops[item[ITEM_AT.op]])),
      el("td", { class: "ref" }, str(item[ITEM_AT.expected_text])),
    ]);
    for (const t of columns) {
      const r = cells.get(t);
      if (r === undefined) {
        tr.appendChild(el("td", { class: "cell none", title: "no result" }, "·"));
        continue;
      }
      const code = RES[r][RES_AT.status];
      const status = STATUS[code];
      const dim = !resultMatches(r, f);
      const button = el("button", {
        type: "button", class: "cell st-" + status + (dim ? " dim" : ""), "aria-expanded": "false",
        "aria-label": status + " on " + TARGETS[t].id + ": show details", title: status + ": " + str(RES[r][RES_AT.message]).slice(0, 300),
        "data-r": String(r),
      }, LETTER[code]);
      button.addEventListener("click", () => toggleCell(table, tr, button, r, columns.length + 3));
      tr.appendChild(el("td", { class: "cellbox" }, button));
      if (r === opened) openCell = { tr: tr, button: button, r: r };
    }
    body.appendChild(tr);
  }
  if (!rows.length) body.appendChild(el("tr", null, el("td", { colspan: String(columns.length + 3), class: "empty" },
    emptyText(state) + ".")));
  const box = el("div", { class: "grid-box" }, table);
  container.replaceChildren(pager(rows.length, PAGE_ROWS, page, "items"), box);
  if (openCell) {
    openCell.button.setAttribute("aria-expanded", "true");
    openDetail(openCell.tr, openCell.r, columns.length + 3);
  }
  fitGrid(box);
  if (openCell && revealOpen) reveal(openCell.tr, openCell.button, table);
}

// A result opened by the address (a link with open=) is scrolled into view, its row just below
// the sticky filter bar and the table's header, and its details take the focus. Set when the
// address changes (boot.js), cleared once the views are drawn.
let revealOpen = false;
function reveal(tr, button, table) {
  const bar = document.getElementById("controls").offsetHeight;
  const head = table.tHead ? table.tHead.offsetHeight : 0;
  tr.style.scrollMarginTop = bar + head + 4 + "px";
  tr.scrollIntoView({ block: "start" });
  button.scrollIntoView({ block: "nearest", inline: "nearest" }); // its column, in a wide matrix
  const panel = tr.nextElementSibling && tr.nextElementSibling.querySelector(".panel");
  if (panel) panel.focus({ preventScroll: true });
}

// A matrix wider than the page (many targets) scrolls inside its own box, its header sticking to
// the box's top; one that fits stays in the page's flow, its header under the filter bar.
function fitGrid(box) {
  box.classList.remove("scrolls");
  box.classList.toggle("scrolls", box.scrollWidth > box.clientWidth + 1);
}

window.addEventListener("resize", () => {
  const box = document.querySelector("#matrix .grid-box");
  if (box) fitGrid(box);
});

function toggleCell(table, tr, button, r, columns) {
  const wasOpen = button.getAttribute("aria-expanded") === "true";
  closeDetails(table);
  if (wasOpen) {
    delete state.open;
  } else {
    button.setAttribute("aria-expanded", "true");
    const detail = openDetail(tr, r, columns);
    state.open = resultKey(r);
    detail.querySelector(".panel").focus({ preventScroll: true });
  }
  fitGrid(table.parentNode);
  writeHash();
}
