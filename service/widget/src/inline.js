// Inline text of answer blocks: only **bold**, `code`, [n] citation markers and [label](https://url)
// links are markup; everything else is text. The text is HTML-escaped first, the four forms are
// turned into tags, and DOMPurify (vendored, bundled) then keeps only those tags and http(s) links,
// so nothing from an answer or a knowledge document can run script in the host page.

var SAFE_URL = /^https?:\/\/[^\s"'<>`]+$/i;

var PURIFY_CONFIG = {
  ALLOWED_TAGS: ["strong", "code", "a", "sup"],
  ALLOWED_ATTR: ["href", "class", "title", "data-n"],
  ALLOWED_URI_REGEXP: /^https?:\/\//i,
  RETURN_DOM_FRAGMENT: true
};

// Every surviving link opens in a new tab without a handle back to the host page.
DOMPurify.addHook("afterSanitizeAttributes", function (node) {
  if (node.tagName === "A") {
    var href = node.getAttribute("href") || "";
    if (!SAFE_URL.test(href)) node.removeAttribute("href");
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
});
// target/rel are set by the hook above; allow them through the attribute check after it.
PURIFY_CONFIG.ADD_ATTR = ["target", "rel"];

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, function (c) {
    return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
  });
}

// citations: the answer's citations list ([n] is 1-based into it); may be empty.
function inlineToHtml(text, citations) {
  var html = escapeHtml(text == null ? "" : text);
  // `code` first so markers inside code stay literal.
  var codes = [];
  html = html.replace(/`([^`]+)`/g, function (_, code) {
    codes.push(code);
    return "\u0000" + (codes.length - 1) + "\u0000";
  });
  html = html.replace(/\[([^\]]+)\]\((https?:\/\/[^\s)]+)\)/g, function (whole, label, url) {
    // url is already escaped; un-escaping &amp; is not needed for a valid href attribute.
    return SAFE_URL.test(url.replace(/&amp;/g, "&")) ? '<a href="' + url + '">' + label + "</a>" : whole;
  });
  html = html.replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>");
  html = html.replace(/\[(\d{1,3})\]/g, function (whole, n) {
    var citation = citations && citations[Number(n) - 1];
    if (!citation) return whole;
    var title = escapeHtml(citation.title || "");
    var url = citation.url && SAFE_URL.test(citation.url) ? escapeHtml(citation.url) : "";
    var inner = url ? '<a href="' + url + '" title="' + title + '">[' + n + "]</a>" : "[" + n + "]";
    return '<sup class="cite" data-n="' + n + '">' + inner + "</sup>";
  });
  html = html.replace(/\u0000(\d+)\u0000/g, function (_, i) { return "<code>" + codes[Number(i)] + "</code>"; });
  return html;
}

// A DocumentFragment holding the sanitised inline text.
function inlineFragment(text, citations) {
  return DOMPurify.sanitize(inlineToHtml(text, citations), PURIFY_CONFIG);
}

// Element helper: h("p", {class: "x"}, [child, "text"]). Strings become text nodes, never HTML.
function h(tag, attrs, children) {
  var el = document.createElement(tag);
  if (attrs) {
    Object.keys(attrs).forEach(function (key) {
      var value = attrs[key];
      if (value === null || value === undefined || value === false) return;
      if (key === "text") el.textContent = value;
      else if (key.slice(0, 2) === "on" && typeof value === "function") el.addEventListener(key.slice(2), value);
      else el.setAttribute(key, value === true ? "" : String(value));
    });
  }
  (children || []).forEach(function (child) {
    if (child === null || child === undefined || child === false) return;
    el.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  });
  return el;
}

// An element whose content is sanitised inline text.
function hInline(tag, attrs, text, citations) {
  var el = h(tag, attrs);
  el.appendChild(inlineFragment(text, citations));
  return el;
}

// A link from data (citation, source): only http(s) URLs become links; anything else is plain text.
function safeLink(url, label, className) {
  if (url && SAFE_URL.test(url)) {
    return h("a", { href: url, target: "_blank", rel: "noopener noreferrer", class: className }, [label]);
  }
  return h("span", { class: className }, [label]);
}
