// A small text/event-stream parser (the WHATWG "interpreting an event stream" rules we need):
// fetch() + ReadableStream instead of EventSource because the request is a POST with a JSON body.
function createSseParser(onEvent) {
  var buffer = "";
  var eventName = "";
  var dataLines = [];

  function dispatch() {
    if (dataLines.length) {
      onEvent(eventName || "message", dataLines.join("\n"));
    }
    eventName = "";
    dataLines = [];
  }

  function line(text) {
    if (text === "") { dispatch(); return; }
    if (text.charAt(0) === ":") return; // comment / keep-alive ping
    var colon = text.indexOf(":");
    var field = colon < 0 ? text : text.slice(0, colon);
    var value = colon < 0 ? "" : text.slice(colon + 1);
    if (value.charAt(0) === " ") value = value.slice(1);
    if (field === "event") eventName = value;
    else if (field === "data") dataLines.push(value);
    // id: and retry: are not needed: a POST stream is never resumed.
  }

  return {
    feed: function (chunk) {
      buffer += chunk;
      var match;
      // Lines end with \r\n, \n or \r; a lone \r at the end may be the first half of \r\n.
      var re = /\r\n|\n|\r(?!$)/g;
      var start = 0;
      while ((match = re.exec(buffer)) !== null) {
        line(buffer.slice(start, match.index));
        start = match.index + match[0].length;
      }
      buffer = buffer.slice(start);
    },
    end: function () {
      if (buffer) { line(buffer.replace(/\r$/, "")); buffer = ""; }
      // An event without its closing blank line is incomplete and is dropped, as the spec says.
      eventName = "";
      dataLines = [];
    }
  };
}

// Reads a fetch Response body as SSE, calling onEvent(name, parsedJson) for each event.
function readSseStream(response, onEvent) {
  var reader = response.body.getReader();
  var decoder = new TextDecoder("utf-8");
  var parser = createSseParser(function (name, data) {
    var parsed;
    try { parsed = JSON.parse(data); } catch (e) { parsed = { text: data }; }
    onEvent(name, parsed);
  });
  function pump() {
    return reader.read().then(function (step) {
      if (step.done) {
        parser.feed(decoder.decode());
        parser.end();
        return;
      }
      parser.feed(decoder.decode(step.value, { stream: true }));
      return pump();
    });
  }
  return pump();
}
