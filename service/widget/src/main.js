// Start-up: read the script tag's data attributes, build the shadow DOM, expose window.GpuAdvisor.
// The API: open(), close(), ask(text), reset(), plus `ready` and `answer` events on the object
// itself (an EventTarget) and as `gpuadvisor:ready` / `gpuadvisor:answer` on window.

var MAX_REMEMBERED_TURNS = 12;

function scriptConfig() {
  var script = document.currentScript || document.querySelector("script[src*='widget.js']");
  var data = (script && script.dataset) || {};
  var apiBase = data.api || (script && script.src ? new URL(script.src, location.href).origin : location.origin);
  return {
    api: apiBase.replace(/\/+$/, ""),
    lang: pickLanguage(data.lang, navigator.language),
    theme: data.theme === "dark" ? "dark" : "light",
    title: data.title || "",
    key: data.key || "",
    open: data.open === "true"
  };
}

function startWidget(config) {
  if (window.GpuAdvisor && window.GpuAdvisor.version) return; // loaded twice: keep the first
  var t = makeTranslator(config.lang);
  var host = document.createElement("gpu-advisor");
  host.setAttribute("data-gpu-advisor", "");
  var shadow = host.attachShadow({ mode: "open" });
  var ui = buildPanel(shadow, config, t);
  var store = sessionStore(config.api);
  var controller = null;
  var api = new EventTarget();

  function session() {
    var id = store.get("id");
    if (!id) { id = newSessionId(); store.set("id", id); }
    return id;
  }

  function emit(name, detail) {
    api.dispatchEvent(new CustomEvent(name, { detail: detail }));
    window.dispatchEvent(new CustomEvent("gpuadvisor:" + name, { detail: detail }));
  }

  function headers() {
    var result = { "Content-Type": "application/json", Accept: "text/event-stream", "Accept-Language": config.lang === "zh-CN" ? "zh-CN" : "en" };
    if (config.key) result["X-Widget-Key"] = config.key;
    // The visitor token the server issued: only it reaches this tab's conversations (others on the same key get 404).
    var visitor = store.get("visitor");
    if (visitor) result["X-Widget-Visitor"] = visitor;
    return result;
  }

  // A response to a request without a (valid) token carries a new one; keep it for the rest of this tab's session.
  function keepVisitor(response) {
    var token = response.headers.get("X-Widget-Visitor");
    if (token) store.set("visitor", token);
  }

  function welcome() {
    ui.log.appendChild(h("p", { class: "welcome muted", text: t("welcome") }));
  }

  // Error text for a non-2xx response: the server's own message (already in the user's language) when there is one.
  function failureText(response, body) {
    if (response.status === 429) return t("rate_limited", { s: response.headers.get("Retry-After") || "60" });
    var detail = body && (body.message || body.detail);
    if (Array.isArray(detail)) detail = detail.map(function (d) { return d.msg || d.message || ""; }).join("; ");
    if (typeof detail === "string" && detail) return detail;
    return response.status === 403 ? t("error_refused") : t("error");
  }

  function ask(text, opts) {
    if (controller) controller.abort();
    if (!(opts && opts.retry)) ui.log.appendChild(userMessage(text, config.lang, t));
    var message = h("div", { class: "msg advisor", lang: config.lang }, [h("span", { class: "who visually-hidden", text: t("advisor") + ": " })]);
    ui.log.appendChild(message);
    var view = new AnswerView(message, t, ui.uid);
    var thisRequest = (controller = new AbortController());
    var finished = false;
    setBusy(ui, true);
    scrollToEnd(ui);

    function retry() { message.remove(); ask(text, { retry: true }); }

    function onEvent(name, data) {
      if (name === "meta") view.meta(data);
      else if (name === "citations") view.showCitations(data.citations);
      else if (name === "tool_result") view.toolResult(data);
      else if (name === "block") view.block(data);
      else if (name === "delta") view.delta(data);
      else if (name === "error") { finished = true; view.fail(data.message || t("error"), retry); }
      else if (name === "done") {
        finished = true;
        // The contract sends {event, answer: Answer}; older servers sent the Answer itself.
        var answer = data.answer && typeof data.answer === "object" ? data.answer : data;
        var lead = finish(view, answer, true);
        remember(text, answer);
        announce(ui, t("answer_ready") + ": " + lead);
        emit("answer", { question: text, answer: answer });
      }
      scrollToEnd(ui);
    }

    var body = { message: text, conversation_key: "widget:" + session() };
    return fetch(config.api + "/v1/chat/stream", { method: "POST", headers: headers(), body: JSON.stringify(body), signal: thisRequest.signal, credentials: "omit" })
      .then(function (response) {
        keepVisitor(response);
        if (!response.ok) {
          return response.json().catch(function () { return null; }).then(function (payload) {
            finished = true;
            view.fail(failureText(response, payload), retry);
          });
        }
        return readSseStream(response, onEvent).then(function () {
          if (!finished) view.fail(t("error"), retry);
        });
      })
      .catch(function (error) {
        if (error && error.name === "AbortError") view.stopped();
        else view.fail(t("error_network"), retry);
      })
      .then(function () {
        if (controller === thisRequest) { controller = null; setBusy(ui, false); }
        scrollToEnd(ui);
      });
  }

  // Renders a complete answer; follow-up buttons only on the latest one. Returns the text to announce.
  function finish(view, answer, latest) {
    var lead = view.done(answer);
    if (latest) {
      var suggestions = (answer.clarification && answer.clarification.suggestions) || [];
      view.suggestions(suggestions.concat(answer.follow_up_questions || []), function (q) { ask(q); });
    }
    if (answer.message_id) view.feedbackButtons(function (rating) { return sendFeedback(answer.message_id, rating); });
    return lead;
  }

  // The transcript of this tab's conversation, so a page reload shows it again (the server keeps the
  // conversation itself under the same key). Only the last turns are kept: sessionStorage is small.
  function transcript() {
    try { return JSON.parse(store.get("transcript") || "[]"); } catch (e) { return []; }
  }

  function remember(question, answer) {
    var turns = transcript().concat([{ question: question, answer: answer }]).slice(-MAX_REMEMBERED_TURNS);
    store.set("transcript", JSON.stringify(turns));
  }

  function restore() {
    var turns = transcript();
    turns.forEach(function (turn, index) {
      var lang = langTag(turn.answer.language);
      ui.log.appendChild(userMessage(turn.question, config.lang, t));
      var message = h("div", { class: "msg advisor", lang: lang }, [h("span", { class: "who visually-hidden", text: t("advisor") + ": " })]);
      ui.log.appendChild(message);
      finish(new AnswerView(message, t, ui.uid), turn.answer, index === turns.length - 1);
    });
    return turns.length > 0;
  }

  function sendFeedback(messageId, rating) {
    return fetch(config.api + "/v1/feedback", { method: "POST", headers: headers(), credentials: "omit",
      body: JSON.stringify({ message_id: messageId, rating: rating }) }).then(function (response) {
      keepVisitor(response);
      if (!response.ok) throw new Error("feedback " + response.status);
    });
  }

  function reset() {
    if (controller) controller.abort();
    store.set("id", null);
    store.set("transcript", null);
    ui.log.textContent = "";
    welcome();
    announce(ui, t("conversation_reset"));
  }

  var panel = wirePanel(ui, {
    onSubmit: function (text) { ask(text); },
    onStop: function () { if (controller) controller.abort(); },
    onReset: reset
  });

  api.version = "1";
  api.open = panel.open;
  api.close = panel.close;
  api.reset = reset;
  api.ask = function (text) { panel.open(); return ask(String(text)); };
  api.session = function () { return "widget:" + session(); };
  window.GpuAdvisor = api;

  welcome();
  restore();
  document.body.appendChild(host);
  if (config.open) panel.open();
  emit("ready", { lang: config.lang, api: config.api });
}

// document.currentScript is only set while this script runs, so the config is read now.
var WIDGET_CONFIG = scriptConfig();
if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", function () { startWidget(WIDGET_CONFIG); });
else startWidget(WIDGET_CONFIG);
