// Renderers for the typed answer blocks (service/contract/blocks.py). Each takes the block and a
// context {t, lang, citations, uid} and returns an element. Text fields are inline text (inline.js);
// everything else is set as textContent. Unknown block types are skipped, not guessed at.
var chartCounter = 0;

function blockTitle(title, citations) {
  return title ? hInline("h4", { class: "block-title" }, title, citations) : null;
}

function copyButton(text, t) {
  var button = h("button", { type: "button", class: "copy", text: t("copy") });
  button.addEventListener("click", function () {
    var done = function () {
      button.textContent = t("copied");
      setTimeout(function () { button.textContent = t("copy"); }, 1500);
    };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(done, function () { selectText(button.previousSibling); });
    } else {
      selectText(button.previousSibling);
    }
  });
  return button;
}

// Clipboard API unavailable (insecure context): select the command so Ctrl+C copies it.
function selectText(node) {
  if (!node) return;
  var range = document.createRange();
  range.selectNodeContents(node);
  var selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
}

function band(b, lang) {
  if (!b) return null;
  return formatNumber(b.typical, lang) + " (" + formatNumber(b.low, lang) + "–" + formatNumber(b.high, lang) + ")";
}

var BLOCK_RENDERERS = {
  lead: function (b, c) { return hInline("p", { class: "block lead" }, b.text, c.citations); },

  paragraph: function (b, c) {
    return h("div", { class: "block paragraph" }, [blockTitle(b.title, c.citations), hInline("p", {}, b.text, c.citations)]);
  },

  bullets: function (b, c) {
    var list = h(b.ordered ? "ol" : "ul");
    (b.items || []).forEach(function (item) { list.appendChild(hInline("li", {}, item, c.citations)); });
    return h("div", { class: "block bullets" }, [blockTitle(b.title, c.citations), list]);
  },

  table: function (b, c) {
    var columns = b.columns || [];
    var numeric = columns.map(function (col, i) {
      return col.align === "right" || (b.rows || []).some(function (row) { return row[i] && row[i].value != null; });
    });
    var head = h("tr", {}, columns.map(function (col, i) {
      return h("th", { scope: "col", class: numeric[i] ? "num" : null }, [col.label + (col.unit ? " (" + col.unit + ")" : "")]);
    }));
    var body = h("tbody", {}, (b.rows || []).map(function (row) {
      return h("tr", {}, row.map(function (cell, i) {
        return hInline("td", { class: numeric[i] ? "num" : null }, cell.text, c.citations);
      }));
    }));
    var table = h("table", {}, [b.title ? hInline("caption", {}, b.title, c.citations) : null, h("thead", {}, [head]), body]);
    var wrap = h("div", { class: "block table" }, [h("div", { class: "table-scroll" }, [table])]);
    // A bar chart of the first numeric column when there are a few rows to compare.
    var col = numeric.indexOf(true);
    if (col > 0 && (b.rows || []).length >= 3 && (b.rows || []).length <= 12) {
      var chart = barChart((b.rows || []).map(function (row) {
        return { label: (row[0] && row[0].text) || "", value: row[col] && row[col].value, text: (row[col] && row[col].text) || "" };
      }), { id: c.uid + "-bar" + (chartCounter++), title: (b.title || "") + " — " + columns[col].label });
      if (chart) wrap.appendChild(h("details", { class: "chart-box" }, [h("summary", { text: columns[col].label }), chart]));
    }
    return wrap;
  },

  checklist: function (b, c) {
    var list = h("ol", { class: "steps" });
    (b.steps || []).forEach(function (step) {
      var item = h("li", {}, [hInline("div", { class: "step-text" }, step.text, c.citations)]);
      if (step.detail) item.appendChild(hInline("div", { class: "step-detail" }, step.detail, c.citations));
      (step.commands || []).forEach(function (command) {
        item.appendChild(h("div", { class: "command" }, [h("pre", {}, [h("code", { text: command })]), copyButton(command, c.t)]));
      });
      list.appendChild(item);
    });
    return h("div", { class: "block checklist" }, [blockTitle(b.title, c.citations), list]);
  },

  recommendation: function (b, c) { return recommendationCard(b.recommendation || {}, c); },

  work: function (b, c) {
    var t = c.t;
    var box = h("details", { class: "block work" }, [h("summary", {}, [b.title || t("work")])]);
    if ((b.inputs || []).length) {
      box.appendChild(h("h5", { text: t("inputs") }));
      box.appendChild(h("div", { class: "table-scroll" }, [h("table", {}, [h("tbody", {}, b.inputs.map(function (input) {
        return h("tr", {}, [
          h("th", { scope: "row", text: input.name }),
          h("td", { class: "num", text: input.value + (input.unit ? " " + input.unit : "") }),
          h("td", { class: "prov prov-" + input.provenance, text: input.provenance_text + (input.source ? " · " + input.source : "") })
        ]);
      }))])]));
    }
    if ((b.formulas || []).length) {
      box.appendChild(h("h5", { text: t("formulas") }));
      box.appendChild(h("ul", { class: "formulas" }, b.formulas.map(function (f) {
        return h("li", {}, [h("span", { class: "f-name", text: f.name + ": " }), h("code", { text: f.formula }),
          h("span", { text: " = " + f.value + (f.unit ? " " + f.unit : "") })]);
      })));
    }
    if (b.more_formulas) box.appendChild(h("p", { class: "muted", text: t("more_formulas", { n: b.more_formulas }) }));
    if ((b.assumptions || []).length) {
      box.appendChild(h("h5", { text: t("assumptions") }));
      box.appendChild(h("ul", {}, b.assumptions.map(function (a) { return hInline("li", {}, a, c.citations); })));
    }
    if ((b.sources || []).length) {
      box.appendChild(h("ul", { class: "work-sources" }, b.sources.map(function (s) { return h("li", {}, [safeLink(s.url, s.title)]); })));
    }
    return box;
  },

  notice: function (b, c) {
    return hInline("p", { class: "block notice notice-" + b.kind, role: b.kind === "error" || b.kind === "warning" ? "note" : null }, b.text, c.citations);
  },

  sources: function (b) {
    return h("div", { class: "block sources" }, [h("h4", { class: "block-title", text: b.title }), h("ol", {}, (b.items || []).map(function (item) {
      return h("li", { value: item.n }, [safeLink(item.url, item.title), h("span", { class: "muted", text: " · " + item.source })]);
    }))]);
  }
};

function recommendationCard(r, c) {
  var t = c.t, lang = c.lang;
  var headline = r.gpus + " × " + r.gpu_name;
  var facts = [
    [t("layout"), t("node_layout", { n: r.nodes, g: r.gpus_per_node })],
    [t("instance"), r.instance],
    [t("per_gpu_memory"), r.per_gpu_memory_gib != null ? formatNumber(r.per_gpu_memory_gib, lang) + " / " + formatNumber(r.gpu_memory_gib, lang) + " GiB" : null],
    [t("precision"), r.precision],
    [t("sharding"), r.sharding],
    [t("time"), r.hours ? band(r.hours, lang) + " h" : null],
    [t("cost"), r.cost ? band(r.cost, lang) + " " + r.currency : null],
    [t("deployment"), r.deployment ? r.deployment + (r.deployment_reason ? " — " + r.deployment_reason : "") : null],
    [t("cpu"), r.cpu],
    [t("ram"), r.ram_gb_per_node != null ? formatNumber(r.ram_gb_per_node, lang) + " GB" : null],
    [t("storage"), r.storage],
    [t("network"), r.network]
  ];
  var list = h("dl", { class: "facts" });
  facts.forEach(function (pair) {
    if (pair[1] === null || pair[1] === undefined || pair[1] === "") return;
    list.appendChild(h("dt", { text: pair[0] }));
    list.appendChild(h("dd", { text: String(pair[1]) }));
  });
  var card = h("section", { class: "block recommendation" }, [
    h("div", { class: "rec-tier", text: r.tier_name || r.tier }),
    h("div", { class: "rec-headline", text: headline }),
    h("div", { class: "rec-model muted", text: [r.model_name, r.method].filter(Boolean).join(" · ") }),
    list
  ]);
  var alts = r.alternatives || [];
  if (alts.length) {
    var rows = alts.map(function (a) {
      return h("tr", {}, [
        h("th", { scope: "row", text: a.label_text }),
        h("td", { text: a.gpus + " × " + a.gpu_name }),
        h("td", { class: "num", text: a.hours ? formatNumber(a.hours.typical, lang) : "–" }),
        h("td", { class: "num", text: a.cost ? formatNumber(a.cost.typical, lang) : "–" })
      ]);
    });
    card.appendChild(h("h5", { text: t("alternatives") }));
    card.appendChild(h("div", { class: "table-scroll" }, [h("table", {}, [
      h("thead", {}, [h("tr", {}, [h("th", {}, [""]), h("th", { text: t("gpus") }), h("th", { class: "num", text: t("hours") }),
        h("th", { class: "num", text: t("cost") + " (" + r.currency + ")" })])]),
      h("tbody", {}, rows)
    ])]));
    var points = alts.map(function (a) {
      return { label: a.label_text, x: a.hours ? a.hours.typical : NaN, y: a.cost ? a.cost.typical : NaN, highlight: a.label === "recommended" };
    });
    // The recommendation itself is a point too, unless it is listed among the alternatives.
    if (!alts.some(function (a) { return a.label === "recommended"; }) && r.hours && r.cost) {
      points.unshift({ label: r.tier_name || r.gpu_name, x: r.hours.typical, y: r.cost.typical, highlight: true });
    }
    var chart = scatterChart(points, { id: c.uid + "-scatter" + (chartCounter++), title: t("chart_title"), xLabel: t("hours"), yLabel: t("cost") + " (" + r.currency + ")", lang: lang });
    if (chart) card.appendChild(h("figure", { class: "chart-box" }, [chart, h("figcaption", { text: t("chart_title") })]));
  }
  return card;
}

function renderBlock(block, context) {
  var renderer = block && BLOCK_RENDERERS[block.type];
  if (!renderer) return null;
  var el = renderer(block, context);
  if (el) el.setAttribute("data-block", block.type);
  return el;
}
