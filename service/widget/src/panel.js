// The widget's DOM: a launcher button and a dialog panel inside a shadow root, so host styles
// do not reach in and ours do not leak out. Keyboard and screen-reader behaviour live here too.
var CHAT_ICON = "M4 4h16v11H7l-3 3z";

function icon(path) {
  var root = svg("svg", { viewBox: "0 0 24 24", "aria-hidden": "true", focusable: "false", class: "icon" });
  root.appendChild(svg("path", { d: path }));
  return root;
}

function buildPanel(shadow, config, t) {
  var uid = "gpa-" + Math.random().toString(36).slice(2, 8);
  var style = document.createElement("style");
  style.textContent = WIDGET_CSS;
  shadow.appendChild(style);

  var launcher = h("button", { type: "button", class: "launcher", "aria-label": t("open"), "aria-expanded": "false",
    "aria-controls": uid + "-panel", "aria-haspopup": "dialog" }, [icon(CHAT_ICON)]);
  var title = h("h2", { id: uid + "-title", class: "title", text: config.title || t("title") });
  var resetButton = h("button", { type: "button", class: "header-button reset", text: t("reset"), title: t("reset") });
  var closeButton = h("button", { type: "button", class: "header-button close", "aria-label": t("close"), title: t("close") }, ["×"]);
  var log = h("div", { class: "log", role: "log", "aria-label": config.title || t("title"), tabindex: "0" });
  var live = h("div", { class: "visually-hidden announcer", "aria-live": "polite", "aria-atomic": "true" });
  var inputId = uid + "-input";
  var input = h("textarea", { id: inputId, class: "input", rows: "2", placeholder: t("placeholder"), maxlength: "4000" });
  var sendButton = h("button", { type: "submit", class: "send", text: t("send") });
  var stopButton = h("button", { type: "button", class: "stop", text: t("stop"), hidden: true });
  var form = h("form", { class: "composer" }, [
    h("label", { for: inputId, class: "visually-hidden", text: t("input_label") }), input, sendButton, stopButton
  ]);
  var panel = h("div", { id: uid + "-panel", class: "panel", role: "dialog", "aria-modal": "false", "aria-labelledby": uid + "-title", hidden: true }, [
    h("header", { class: "header" }, [title, resetButton, closeButton]), log, form, live
  ]);
  var root = h("div", { class: "root", "data-theme": config.theme, lang: config.lang }, [launcher, panel]);
  shadow.appendChild(root);
  return {
    uid: uid, root: root, launcher: launcher, panel: panel, log: log, live: live, input: input, form: form,
    sendButton: sendButton, stopButton: stopButton, resetButton: resetButton, closeButton: closeButton
  };
}

// Wires open/close, Esc, focus return, Enter-to-send. `handlers` = {onSubmit(text), onStop(), onReset()}.
function wirePanel(ui, handlers) {
  var isOpen = false;

  function open() {
    if (isOpen) return;
    isOpen = true;
    ui.panel.hidden = false;
    ui.root.classList.add("open");
    ui.launcher.setAttribute("aria-expanded", "true");
    ui.input.focus();
  }

  function close() {
    if (!isOpen) return;
    isOpen = false;
    ui.panel.hidden = true;
    ui.root.classList.remove("open");
    ui.launcher.setAttribute("aria-expanded", "false");
    ui.launcher.focus();
  }

  ui.launcher.addEventListener("click", function () { if (isOpen) close(); else open(); });
  ui.closeButton.addEventListener("click", close);
  ui.resetButton.addEventListener("click", function () { handlers.onReset(); ui.input.focus(); });
  ui.stopButton.addEventListener("click", function () { handlers.onStop(); });
  ui.panel.addEventListener("keydown", function (event) {
    if (event.key === "Escape") {
      event.stopPropagation();
      close();
    }
  });
  ui.input.addEventListener("keydown", function (event) {
    // isComposing: Enter that confirms a Chinese IME candidate must not send the message.
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing && event.keyCode !== 229) {
      event.preventDefault();
      submit();
    }
  });
  ui.form.addEventListener("submit", function (event) {
    event.preventDefault();
    submit();
  });

  function submit() {
    var text = ui.input.value.trim();
    if (!text || ui.sendButton.disabled) return;
    ui.input.value = "";
    handlers.onSubmit(text);
  }

  return { open: open, close: close, isOpen: function () { return isOpen; } };
}

function setBusy(ui, busy) {
  ui.sendButton.disabled = busy;
  ui.sendButton.hidden = busy;
  ui.stopButton.hidden = !busy;
  ui.root.classList.toggle("busy", busy);
}

function scrollToEnd(ui) {
  ui.log.scrollTop = ui.log.scrollHeight;
}

// Screen readers hear each finished answer once, not every streamed token.
function announce(ui, text) {
  ui.live.textContent = "";
  setTimeout(function () { ui.live.textContent = text; }, 50);
}
