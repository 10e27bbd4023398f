// Hand-written SVG charts (no library, no CDN). Numbers drawn here are the tool's own values
// (typical hours and cost of each alternative); the labels repeat the table's text.
var SVG_NS = "http://www.w3.org/2000/svg";

function svg(tag, attrs, text) {
  var el = document.createElementNS(SVG_NS, tag);
  Object.keys(attrs || {}).forEach(function (key) { el.setAttribute(key, String(attrs[key])); });
  if (text !== undefined) el.textContent = text;
  return el;
}

// Whole numbers from 100 up, one decimal from 10, two below: the precision the answer text uses.
function formatNumber(value, lang) {
  var digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  try {
    return new Intl.NumberFormat(lang, { maximumFractionDigits: digits }).format(value);
  } catch (e) {
    return String(Math.round(value * Math.pow(10, digits)) / Math.pow(10, digits));
  }
}

// points: [{label, x, y, highlight}] with x = hours, y = cost. Returns an <svg> or null when
// fewer than two points have both values (a single dot says nothing a table row does not).
function scatterChart(points, opts) {
  var usable = points.filter(function (p) { return isFinite(p.x) && isFinite(p.y) && p.x > 0 && p.y > 0; });
  if (usable.length < 2) return null;
  var width = 320, height = 200, left = 52, right = 12, top = 12, bottom = 40;
  var xs = usable.map(function (p) { return p.x; }), ys = usable.map(function (p) { return p.y; });
  var x0 = 0, x1 = Math.max.apply(null, xs) * 1.1, y0 = 0, y1 = Math.max.apply(null, ys) * 1.1;
  function px(x) { return left + ((x - x0) / (x1 - x0)) * (width - left - right); }
  function py(y) { return height - bottom - ((y - y0) / (y1 - y0)) * (height - top - bottom); }

  var root = svg("svg", { viewBox: "0 0 " + width + " " + height, role: "img", class: "chart", "aria-labelledby": opts.id + "-t" });
  root.appendChild(svg("title", { id: opts.id + "-t" }, opts.title));
  root.appendChild(svg("line", { x1: left, y1: height - bottom, x2: width - right, y2: height - bottom, class: "axis" }));
  root.appendChild(svg("line", { x1: left, y1: top, x2: left, y2: height - bottom, class: "axis" }));
  root.appendChild(svg("text", { x: (left + width - right) / 2, y: height - 6, "text-anchor": "middle", class: "axis-label" }, opts.xLabel));
  root.appendChild(svg("text", { x: 12, y: (top + height - bottom) / 2, "text-anchor": "middle", class: "axis-label",
    transform: "rotate(-90 12 " + (top + height - bottom) / 2 + ")" }, opts.yLabel));
  [x1 / 2, x1 / 1.1].forEach(function (tick) {
    root.appendChild(svg("text", { x: px(tick), y: height - bottom + 14, "text-anchor": "middle", class: "tick" }, formatNumber(tick, opts.lang)));
  });
  [y1 / 2, y1 / 1.1].forEach(function (tick) {
    root.appendChild(svg("text", { x: left - 4, y: py(tick) + 4, "text-anchor": "end", class: "tick" }, formatNumber(tick, opts.lang)));
  });
  usable.forEach(function (p) {
    var g = svg("g", { class: p.highlight ? "point highlight" : "point" });
    g.appendChild(svg("circle", { cx: px(p.x), cy: py(p.y), r: p.highlight ? 6 : 4 }));
    g.appendChild(svg("title", {}, p.label + ": " + formatNumber(p.x, opts.lang) + " " + opts.xLabel + ", " + formatNumber(p.y, opts.lang) + " " + opts.yLabel));
    var anchorEnd = px(p.x) > width / 2;
    g.appendChild(svg("text", { x: px(p.x) + (anchorEnd ? -8 : 8), y: py(p.y) - 6, "text-anchor": anchorEnd ? "end" : "start", class: "point-label" }, p.label));
    root.appendChild(g);
  });
  return root;
}

// A horizontal bar chart of one numeric table column (label column text + cell.value).
function barChart(rows, opts) {
  var usable = rows.filter(function (r) { return isFinite(r.value) && r.value >= 0; });
  if (usable.length < 2) return null;
  var barHeight = 18, gap = 6, left = 110, right = 56, width = 320;
  var height = usable.length * (barHeight + gap) + gap;
  var max = Math.max.apply(null, usable.map(function (r) { return r.value; })) || 1;
  var root = svg("svg", { viewBox: "0 0 " + width + " " + height, role: "img", class: "chart", "aria-labelledby": opts.id + "-t" });
  root.appendChild(svg("title", { id: opts.id + "-t" }, opts.title));
  usable.forEach(function (r, i) {
    var y = gap + i * (barHeight + gap);
    var w = Math.max(1, (r.value / max) * (width - left - right));
    root.appendChild(svg("text", { x: left - 6, y: y + barHeight - 5, "text-anchor": "end", class: "tick" }, r.label.slice(0, 18)));
    root.appendChild(svg("rect", { x: left, y: y, width: w, height: barHeight, class: "bar" }));
    root.appendChild(svg("text", { x: left + w + 4, y: y + barHeight - 5, class: "tick" }, r.text));
  });
  return root;
}
