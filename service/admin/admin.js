// The /admin analytics page. Everything shown comes from GET /v1/admin/analytics and is written with
// textContent (question texts and comments are user input: they must stay text). No framework, no CDN,
// no inline script: the page's CSP allows scripts from this origin only.
(function () {
  "use strict";
  var KEY_STORE = "advisor-admin-key"; // sessionStorage: gone when the tab closes
  var LABELS = {
    en: {
      title: "Advisor analytics", key: "Admin key", days: "Days", load: "Show", forget: "Forget key", summary: "Summary",
      gaps: "Coverage gaps", perDay: "Questions per day", channels: "Channels", languages: "Languages", intents: "Top intents",
      outcomes: "Outcomes", latency: "Latency (ms)", thumbsDown: "Thumbs down", total: "Questions", stored: "Question texts",
      yes: "stored", no: "not stored", up: "Thumbs up", down: "Thumbs down", day: "Day", count: "Count", share: "Share",
      stage: "Stage", comment: "Comment", question: "Question", intent: "Intent", channel: "Channel", language: "Language",
      when: "When", outcome: "Outcome", loading: "Loading…", denied: "The admin key was refused.", failed: "The analytics could not be loaded: ",
      none: "Nothing in this period.", questions: "questions", examples: "Examples", terms: "Terms", confidence: "mean confidence",
      total_stage: "whole turn", hidden: "(question texts not stored)"
    },
    zh: {
      title: "顾问运营分析", key: "管理员密钥", days: "天数", load: "查看", forget: "清除密钥", summary: "概览",
      gaps: "覆盖缺口", perDay: "每日问题数", channels: "渠道", languages: "语言", intents: "主要意图",
      outcomes: "结果", latency: "延迟（毫秒）", thumbsDown: "差评", total: "问题数", stored: "问题原文",
      yes: "已保存", no: "未保存", up: "好评", down: "差评", day: "日期", count: "数量", share: "占比",
      stage: "阶段", comment: "评论", question: "问题", intent: "意图", channel: "渠道", language: "语言",
      when: "时间", outcome: "结果", loading: "加载中…", denied: "管理员密钥无效。", failed: "无法加载分析数据：",
      none: "此期间没有数据。", questions: "个问题", examples: "示例", terms: "关键词", confidence: "平均置信度",
      total_stage: "整轮", hidden: "（未保存问题原文）"
    }
  };
  var lang = /^zh/i.test(navigator.language || "") ? "zh" : "en";
  var L = LABELS[lang];

  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (cls) node.className = cls;
    return node;
  }

  function pct(share) { return (Math.round(share * 1000) / 10).toFixed(1) + "%"; }

  function bar(value, max) {
    var outer = el("div", null, "bar-track");
    var inner = el("div", null, "bar");
    inner.style.width = (max > 0 ? Math.max(0.5, (100 * value) / max) : 0) + "%";
    outer.appendChild(inner);
    return outer;
  }

  function table(headers, rows) {
    var t = el("table");
    var head = el("tr");
    headers.forEach(function (h) { head.appendChild(el("th", h)); });
    t.appendChild(el("thead")).appendChild(head);
    var body = el("tbody");
    rows.forEach(function (cells) {
      var tr = el("tr");
      if (cells.key !== undefined) tr.dataset.key = cells.key;
      cells.forEach(function (c) {
        var td = el("td", null, c && c.cls);
        if (c instanceof Node) td.appendChild(c);
        else if (c && c.node) td.appendChild(c.node);
        else td.textContent = c && typeof c === "object" ? c.text : (c === null || c === undefined ? "—" : String(c));
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
    t.appendChild(body);
    return t;
  }

  function fill(id, node) {
    var box = document.querySelector("#" + id + " .table");
    box.replaceChildren(node);
  }

  function shareTable(id, shares) {
    if (!shares.length) { fill(id, el("p", L.none, "notice")); return; }
    var max = Math.max.apply(null, shares.map(function (s) { return s.count; }));
    var rows = shares.map(function (s) {
      var row = [s.key, { text: s.count, cls: "num" }, { text: pct(s.share), cls: "num" }, { node: bar(s.count, max), cls: "bar-cell" }];
      row.key = s.key;
      return row;
    });
    fill(id, table(["", L.count, L.share, ""], rows));
  }

  function renderSummary(r) {
    var dl = document.querySelector("#summary .figures");
    var figures = [[L.total, r.total], [L.stored, r.questions_stored ? L.yes : L.no], [L.up, r.feedback.up || 0], [L.down, r.feedback.down || 0]];
    dl.replaceChildren();
    figures.forEach(function (f) {
      var box = el("div");
      box.appendChild(el("dt", f[0]));
      box.appendChild(el("dd", f[1]));
      dl.appendChild(box);
    });
  }

  function renderGaps(r) {
    var list = document.querySelector("#gaps .gap-list");
    document.querySelector("#gaps .notice").textContent = r.notice || "";
    list.replaceChildren();
    var max = Math.max.apply(null, [1].concat(r.coverage_gaps.map(function (g) { return g.count; })));
    r.coverage_gaps.forEach(function (g) {
      var item = el("li", null, "gap");
      item.dataset.key = g.key;
      item.appendChild(el("div", g.suggestion, "suggestion"));
      var meta = g.count + " " + L.questions + " · " + Object.keys(g.languages).join(", ") + " · " + Object.keys(g.intents).join(", ");
      if (g.mean_confidence !== null) meta += " · " + L.confidence + " " + g.mean_confidence;
      item.appendChild(el("div", meta, "meta"));
      item.appendChild(bar(g.count, max));
      if (g.examples.length) {
        var ul = el("ul", null, "examples");
        g.examples.forEach(function (q) { ul.appendChild(el("li", q, "example")); });
        item.appendChild(ul);
      } else {
        item.appendChild(el("div", L.hidden, "meta"));
      }
      list.appendChild(item);
    });
  }

  function renderPerDay(r) {
    var channels = {};
    r.per_day.forEach(function (d) { Object.keys(d.by_channel).forEach(function (c) { channels[c] = true; }); });
    var names = Object.keys(channels).sort();
    var max = Math.max.apply(null, [0].concat(r.per_day.map(function (d) { return d.total; })));
    // Every day of the window as a column (oldest left), then a table of the days that had questions (newest first).
    var chart = el("div", null, "columns");
    chart.setAttribute("role", "img");
    chart.setAttribute("aria-label", L.perDay);
    r.per_day.forEach(function (d) {
      var column = el("div", null, "column");
      column.title = d.day + ": " + d.total;
      var fillBar = el("div", null, "column-bar");
      fillBar.style.height = (max > 0 ? (100 * d.total) / max : 0) + "%";
      column.appendChild(fillBar);
      chart.appendChild(column);
    });
    var busy = r.per_day.filter(function (d) { return d.total > 0; }).reverse();
    var rows = busy.map(function (d) {
      var row = [d.day, { text: d.total, cls: "num" }].concat(names.map(function (c) { return { text: d.by_channel[c] || 0, cls: "num" }; }));
      row.key = d.day;
      return row;
    });
    var box = el("div");
    box.appendChild(chart);
    box.appendChild(busy.length ? table([L.day, L.count].concat(names), rows) : el("p", L.none, "notice"));
    fill("per-day", box);
  }

  function renderLatency(r) {
    var rows = [[L.total_stage, r.latency_ms.total]].concat(Object.keys(r.latency_ms.stages).map(function (s) { return [s, r.latency_ms.stages[s]]; }));
    fill("latency", table([L.stage, "p50", "p95", "p99", L.count], rows.map(function (x) {
      var row = [x[0], { text: x[1].p50, cls: "num" }, { text: x[1].p95, cls: "num" }, { text: x[1].p99, cls: "num" }, { text: x[1].count, cls: "num" }];
      row.key = x[0];
      return row;
    })));
  }

  function renderThumbsDown(r) {
    if (!r.thumbs_down.length) { fill("thumbs-down", el("p", L.none, "notice")); return; }
    fill("thumbs-down", table([L.when, L.comment, L.question, L.intent, L.channel, L.language], r.thumbs_down.map(function (t) {
      var row = [new Date(t.created_at * 1000).toLocaleString(lang === "zh" ? "zh-CN" : "en-GB"), t.comment, t.question, t.intent, t.channel, t.language];
      row.key = t.message_id;
      return row;
    })));
  }

  function render(r) {
    renderSummary(r);
    renderGaps(r);
    renderPerDay(r);
    shareTable("channels", r.channels);
    shareTable("languages", r.languages);
    shareTable("intents", r.intents);
    shareTable("outcomes", r.outcomes);
    renderLatency(r);
    renderThumbsDown(r);
    document.getElementById("report").hidden = false;
  }

  function status(text, isError) {
    var s = document.getElementById("status");
    s.textContent = text;
    s.className = isError ? "error" : "";
  }

  function load() {
    var key = document.getElementById("admin-key").value.trim();
    if (key) sessionStorage.setItem(KEY_STORE, key);
    var days = document.getElementById("days").value;
    var headers = { "Accept": "application/json", "Accept-Language": lang };
    if (key) headers["X-API-Key"] = key;
    status(L.loading, false);
    document.body.dataset.state = "loading";
    fetch("/v1/admin/analytics?days=" + encodeURIComponent(days) + "&lang=" + lang, { headers: headers, credentials: "same-origin" })
      .then(function (response) {
        if (response.status === 401 || response.status === 403) throw new Error(L.denied);
        if (!response.ok) throw new Error(L.failed + response.status);
        return response.json();
      })
      .then(function (report) {
        render(report);
        status("", false);
        document.body.dataset.state = "loaded";
      })
      .catch(function (error) {
        document.getElementById("report").hidden = true;
        status(error.message.indexOf(L.failed) === 0 || error.message === L.denied ? error.message : L.failed + error.message, true);
        document.body.dataset.state = "error";
      });
  }

  function init() {
    document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
    document.title = L.title;
    document.querySelectorAll("[data-label]").forEach(function (node) { node.textContent = L[node.dataset.label]; });
    var saved = sessionStorage.getItem(KEY_STORE);
    if (saved) document.getElementById("admin-key").value = saved;
    document.getElementById("key-form").addEventListener("submit", function (event) { event.preventDefault(); load(); });
    document.getElementById("forget").addEventListener("click", function () {
      sessionStorage.removeItem(KEY_STORE);
      document.getElementById("admin-key").value = "";
      document.getElementById("report").hidden = true;
    });
    document.body.dataset.state = "ready";
    if (saved) load();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
