// matrix.js: items (case, op) by targets, one page of rows at a time; a cell opens its details.

function visibleTargets(f) {
  return f.target >= 0 ? [f.target] : TARGETS.map((_, i) => i);
}

// Items with at least one result that passes every filter, in corpus order.
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
  return rows;
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
    const at = rows.indexOf(RES[opened][0]);
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
    const kase = CASES[item[0]];
    const cells = new Map();
    for (let r = ITEM_START[it]; r < ITEM_START[it + 1]; r++) cells.set(RES[r][1], r);
    const tr = el("tr", { "data-item": String(it) }, [
      el("th", { scope: "row", class: "case" }, [el("code", null, caseId(item[0])),
        kase.t >= 0 ? el("div", { class: "title" }, S[kase.t]) : null]),
      el("td", null, el("code", null, D.ops[item[1]])),
      el("td", { class: "ref" }, str(item[3])),
    ]);
    for (const t of columns) {
      const r = cells.get(t);
      if (r === undefined) {
        tr.appendChild(el("td", { class: "cell none", title: "no result" }, "·"));
        continue;
      }
      const status = STATUS[RES[r][2]];
      const dim = !resultMatches(r, f);
      const button = el("button", {
        type: "button", class: "cell st-" + status + (dim ? " dim" : ""), "aria-expanded": "false",
        "aria-label": status + " on " + TARGETS[t].id + ": show details", title: status + ": " + str(RES[r][3]).slice(0, 300),
        "data-r": String(r),
      }, LETTER[RES[r][2]]);
      button.addEventListener("click", () => toggleCell(table, tr, button, r, columns.length + 3));
      tr.appendChild(el("td", { class: "cellbox" }, button));
      if (r === opened) openCell = [tr, button, r];
    }
    body.appendChild(tr);
  }
  if (!rows.length) body.appendChild(el("tr", null, el("td", { colspan: String(columns.length + 3) },
    "No result matches these filters.")));
  container.replaceChildren(pager(rows.length, PAGE_ROWS, page, "items"), table);
  if (openCell) {
    openCell[1].setAttribute("aria-expanded", "true");
    openDetail(openCell[0], openCell[2], columns.length + 3);
  }
}

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
  writeHash();
}
