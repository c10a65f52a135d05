/**
 * What the store's page and the subscribers' portal share of their scripts: showing any value as text
 * (control, bidirectional and invisible characters as \u escapes), building rows with textContent only,
 * keeping a table's rows by key, and the buttons and forms that call the admin API. Each page's script
 * puts it inside its own function, where it finds that page's `$`, `api`, `poll` and `latest`.
 */
export const PAGE_SCRIPT_KIT = String.raw`
  // Control characters (NUL included), line and paragraph separators, bidirectional controls
  // (U+061C, U+200E-F, U+202A-E, U+2066-9) and invisible characters (U+00AD, U+180E, U+200B-D,
  // U+2060-4, U+FEFF) shown as \u escapes, so hostile text can neither hide, reorder nor break lines:
  // a URL ending "?x=\u202Egnp.exe" must not read as one ending in ".png".
  function show(value, max) {
    var text = value === null || value === undefined ? "" : String(value);
    if (max && text.length > max) text = text.slice(0, max) + "…";
    return text.replace(/[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g, function (c) {
      if (c === "\n") return "\n";
      return "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0");
    });
  }

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (name) {
      if (name === "text") node.textContent = show(attrs.text, attrs.max);
      else if (name === "max") return;
      else if (name === "className") node.className = attrs.className;
      else node.setAttribute(name, String(attrs[name]));
    });
    (children || []).forEach(function (child) { if (child) node.appendChild(child); });
    return node;
  }

  function setStatus(state, text) {
    $("status").dataset.state = state;
    $("status").textContent = text;
    document.body.dataset.state = state;
  }

  function notice(text) {
    $("notice").hidden = !text;
    $("notice").textContent = show(text);
  }

  // Rows keyed by id: a row is rebuilt only when what it shows changed.
  function sync(tbody, items, key, build) {
    var keep = new Map();
    Array.from(tbody.children).forEach(function (row) {
      if (keep.has(row.dataset.key)) row.remove();
      else keep.set(row.dataset.key, row);
    });
    var before = tbody.firstChild;
    items.forEach(function (item) {
      var id = key(item);
      var json = JSON.stringify(item);
      var row = keep.get(id);
      keep.delete(id);
      if (!row || row.dataset.json !== json) {
        var fresh = build(item);
        fresh.dataset.key = id;
        fresh.dataset.json = json;
        if (row) {
          if (before === row) before = fresh;
          tbody.replaceChild(fresh, row);
        }
        row = fresh;
      }
      if (row !== before) tbody.insertBefore(row, before);
      before = row.nextSibling;
    });
    keep.forEach(function (row) { row.remove(); });
  }

  function act(button, method, path, body, done) {
    button.disabled = true;
    api(method, path, body)
      .then(function (data) { if (done) done(data); return poll(); })
      .catch(function (error) { if (error.message !== "401") notice("Failed: " + error.message); })
      .finally(function () { button.disabled = false; });
  }

  function button(label, action, onClick) {
    var node = el("button", { type: "button", "data-action": action, text: label });
    node.addEventListener("click", function () { onClick(node); });
    return node;
  }

  // null: every event type, what an endpoint without a list receives.
  function subscriptions(eventTypes) {
    return eventTypes === null ? "all" : eventTypes.join(", ");
  }

  function rate(health) {
    if (!health || health.successRate === null) return "no attempts";
    return Math.round(health.successRate * 100) + " % (" + health.succeeded + "/" + health.attempts + ")";
  }

  function state(delivery) {
    if (delivery.status === "pending" && delivery.attempts > 0) return "retrying";
    return delivery.status;
  }

  // A select of the endpoints, rebuilt only when they change, keeping the one chosen. Keyed by URL
  // too: an endpoint moved to another URL must not stay listed under its old one.
  function chooseEndpoint(select) {
    var ids = latest.endpoints.map(function (endpoint) { return String(endpoint.id); });
    var shown = JSON.stringify(latest.endpoints.map(function (endpoint) { return [endpoint.id, endpoint.url]; }));
    if (select.dataset.endpoints === shown) return;
    select.dataset.endpoints = shown;
    var chosen = select.value;
    select.replaceChildren.apply(select, latest.endpoints.map(function (endpoint) {
      return el("option", { value: endpoint.id, text: "#" + endpoint.id + " " + endpoint.url, max: 80 });
    }));
    if (ids.indexOf(chosen) >= 0) select.value = chosen;
  }
`;
