// One question and its streamed answer: POST /v1/chat/stream, events meta -> citations ->
// tool_result* -> (block | delta)* -> done (or error). Blocks are rendered as they arrive;
// a server that sends no block events is rendered from done.answer.blocks.

function sessionStore(apiBase) {
  var name = "gpu-advisor:session:" + apiBase;
  var memory = {};
  function get(key) {
    try { return window.sessionStorage.getItem(name + ":" + key); } catch (e) { return memory[key] || null; }
  }
  function set(key, value) {
    try {
      if (value === null) window.sessionStorage.removeItem(name + ":" + key);
      else window.sessionStorage.setItem(name + ":" + key, value);
    } catch (e) { memory[key] = value; }
  }
  return { get: get, set: set };
}

function newSessionId() {
  var bytes = new Uint8Array(16);
  (window.crypto || window.msCrypto).getRandomValues(bytes);
  return Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
}

function userMessage(text, lang, t) {
  return h("div", { class: "msg user", lang: lang }, [h("span", { class: "who visually-hidden", text: t("you") + ": " }), h("p", { text: text })]);
}

// Source cards: shown as soon as the citations event arrives, before any answer text.
function sourceCards(citations, t) {
  if (!citations || !citations.length) return null;
  return h("ol", { class: "source-cards", "aria-label": t("sources") }, citations.map(function (c, i) {
    return h("li", { class: "source-card" }, [
      h("span", { class: "source-n", text: String(i + 1) }),
      h("div", {}, [safeLink(c.url, c.title, "source-title"), h("div", { class: "source-meta muted", text: c.source || "" })])
    ]);
  }));
}

// Thumbs as SVG paths: emoji fonts are not on every system (and not in headless Chromium).
var THUMB_UP = "M2 10h4v11H2zM8 21h9.5a2 2 0 0 0 2-1.6l1.4-7A2 2 0 0 0 19 10h-5.5l.9-4.3a1.5 1.5 0 0 0-2.7-1.2L8 10z";
var THUMB_DOWN = "M2 3h4v11H2zM8 3h9.5a2 2 0 0 1 2 1.6l1.4 7A2 2 0 0 1 19 14h-5.5l.9 4.3a1.5 1.5 0 0 1-2.7 1.2L8 14z";

// Renders one answer into `message` (an element in the log) as events arrive.
function AnswerView(message, t, uid) {
  this.message = message;
  this.t = t;
  this.uid = uid;
  this.citations = [];
  this.blocks = [];
  this.body = h("div", { class: "answer-body" });
  this.status = h("p", { class: "status muted", text: t("thinking") });
  this.draft = null; // plain streamed text (delta events), replaced by the blocks when done
  message.appendChild(this.status);
  message.appendChild(this.body);
}

// Labels inside an answer (card fields, "how this was computed") follow the answer's language, not the UI's.
AnswerView.prototype.context = function () {
  var lang = this.message.getAttribute("lang") || "en";
  return { t: makeTranslator(lang), lang: lang, citations: this.citations, uid: this.uid };
};

AnswerView.prototype.meta = function (meta) {
  if (meta.language) this.message.setAttribute("lang", langTag(meta.language));
  if (meta.message_id) this.message.setAttribute("data-message-id", meta.message_id);
};

AnswerView.prototype.showCitations = function (citations) {
  this.citations = citations || [];
  var cards = sourceCards(this.citations, this.t);
  if (cards) this.message.insertBefore(cards, this.body);
};

AnswerView.prototype.toolResult = function (event) {
  this.status.textContent = this.t("computing") + ": " + event.tool + "…";
};

AnswerView.prototype.block = function (event) {
  this.status.hidden = true;
  if (this.draft) { this.draft.remove(); this.draft = null; }
  var el = renderBlock(event.block, this.context());
  if (!el) return;
  this.blocks[event.index] = el;
  // Keep answer order even if an index arrives out of order.
  var next = null;
  for (var i = event.index + 1; i < this.blocks.length; i++) { if (this.blocks[i]) { next = this.blocks[i]; break; } }
  this.body.insertBefore(el, next);
};

AnswerView.prototype.delta = function (event) {
  if (this.blocks.length) return; // block events carry the same content, typed
  this.status.hidden = true;
  if (!this.draft) { this.draft = h("p", { class: "draft" }); this.body.appendChild(this.draft); }
  this.draft.textContent += event.text || ""; // shown as plain text, never parsed as Markdown
};

// `answer` is the full Answer. Returns the plain text to announce.
AnswerView.prototype.done = function (answer) {
  this.status.hidden = true;
  this.meta(answer);
  if (!this.citations.length && answer.citations && answer.citations.length) this.showCitations(answer.citations);
  if (!this.blocks.length && answer.blocks && answer.blocks.length) {
    if (this.draft) { this.draft.remove(); this.draft = null; }
    var self = this;
    answer.blocks.forEach(function (block, index) { self.block({ index: index, block: block }); });
  }
  if (!this.blocks.length && !this.draft && answer.answer) {
    this.draft = h("p", { class: "draft", text: answer.answer });
    this.body.appendChild(this.draft);
  }
  var lead = this.body.querySelector(".lead") || this.body.firstChild;
  return lead ? lead.textContent : "";
};

AnswerView.prototype.suggestions = function (questions, onPick) {
  if (!questions || !questions.length) return;
  var lang = this.message.getAttribute("lang");
  var box = h("div", { class: "follow-ups", role: "group", "aria-label": this.t("follow_ups") }, questions.map(function (q) {
    return h("button", { type: "button", class: "follow-up", lang: lang, text: q, onclick: function () { onPick(q); } });
  }));
  this.message.appendChild(box);
};

AnswerView.prototype.feedbackButtons = function (onRate) {
  var t = this.t;
  var thanks = h("span", { class: "muted thanks", "aria-live": "polite" });
  function button(rating, label, path) {
    return h("button", { type: "button", class: "rate rate-" + rating, "aria-label": label, title: label, "aria-pressed": "false",
      onclick: function (event) {
        var target = event.currentTarget;
        onRate(rating).then(function () {
          Array.prototype.forEach.call(target.parentNode.querySelectorAll(".rate"), function (b) { b.setAttribute("aria-pressed", "false"); });
          target.setAttribute("aria-pressed", "true");
          thanks.textContent = t("thanks");
        }, function () { thanks.textContent = t("error"); });
      } }, [icon(path)]);
  }
  this.message.appendChild(h("div", { class: "feedback" }, [button("up", t("helpful"), THUMB_UP), button("down", t("not_helpful"), THUMB_DOWN), thanks]));
};

AnswerView.prototype.fail = function (text, onRetry) {
  this.status.hidden = true;
  var box = h("div", { class: "error", role: "alert" }, [h("p", { text: text })]);
  if (onRetry) box.appendChild(h("button", { type: "button", class: "retry", text: this.t("retry"), onclick: function () { box.remove(); onRetry(); } }));
  this.message.appendChild(box);
};

AnswerView.prototype.stopped = function () {
  this.status.hidden = true;
  this.message.appendChild(h("p", { class: "muted stopped", text: this.t("stopped") }));
};
