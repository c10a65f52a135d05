/**
 * The live page: plain HTML and a few lines of script, no build step. It loads `/plants` each time
 * its `/events` stream opens (the first time and after every reconnect), never before: a plant stored
 * before the stream is open is in that list, one stored after it comes as an event, and webhook ids
 * already shown are skipped, so none is lost or shown twice. Plants are placed by arrival time, newest
 * first, whichever way they come. Text goes in through `textContent` only: plant names are untrusted.
 *
 * Below the plants, each recent delivery's details (webhook id, attempt, duplicate, status, time to
 * answer) and the refused requests by status code come from `/deliveries`, polled every 2 s and after
 * every plant event: the details are a small in-memory snapshot, not a stream.
 */
export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Plant receiver</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; margin: 2rem auto; max-width: 40rem; padding: 0 1rem; color: #1b3a1b; }
  h1 { font-size: 1.5rem; }
  #status { font-size: .875rem; color: #666; }
  #status[data-state="live"] { color: #2e7d32; }
  ul { list-style: none; padding: 0; }
  li { padding: .5rem .75rem; border-bottom: 1px solid #dde5dd; }
  li.new { animation: flash 1.5s ease-out; }
  .tag { font-size: .75rem; background: #e8f5e9; border-radius: .75rem; padding: .1rem .5rem; margin-left: .5rem; }
  .meta { display: block; font-size: .75rem; color: #777; }
  table { border-collapse: collapse; width: 100%; font-size: .8rem; }
  th, td { text-align: left; padding: .25rem .4rem; border-bottom: 1px solid #dde5dd; }
  td.id { word-break: break-all; }
  h2 { font-size: 1.1rem; margin-top: 2rem; }
  #refused li { display: inline-block; border: 0; margin-right: 1rem; padding: 0; }
  @keyframes flash { from { background: #fff59d; } to { background: transparent; } }
</style>
</head>
<body>
<h1>Received plants</h1>
<p id="status" data-state="connecting">Connecting…</p>
<p id="empty">No plants yet.</p>
<ul id="plants"></ul>
<h2>Recent deliveries</h2>
<table>
  <thead><tr><th>Webhook id</th><th>Attempt</th><th>Duplicate</th><th>Status</th><th>Handled in</th><th>At</th></tr></thead>
  <tbody id="deliveries"></tbody>
</table>
<h2>Refused requests</h2>
<p id="no-refused">None.</p>
<ul id="refused"></ul>
<script>
(function () {
  var list = document.getElementById("plants");
  var status = document.getElementById("status");
  var empty = document.getElementById("empty");
  var seen = new Set();

  function render(plant, fresh) {
    if (seen.has(plant.webhookId)) return;
    seen.add(plant.webhookId);
    empty.hidden = true;
    var at = Date.parse(plant.receivedAt);
    var item = document.createElement("li");
    item.dataset.webhookId = plant.webhookId;
    item.dataset.plantId = String(plant.id);
    item.dataset.at = String(at);
    if (fresh) item.className = "new";
    var name = document.createElement("strong");
    name.className = "name";
    name.textContent = plant.name;
    item.appendChild(name);
    if (plant.tag) {
      var tag = document.createElement("span");
      tag.className = "tag";
      tag.textContent = plant.tag;
      item.appendChild(tag);
    }
    var meta = document.createElement("span");
    meta.className = "meta";
    meta.textContent = "#" + plant.id + " · " + new Date(plant.receivedAt).toLocaleString();
    item.appendChild(meta);
    // Before the first one that arrived earlier: newest first (a live plant usually goes on top).
    var next = list.firstElementChild;
    while (next && Number(next.dataset.at) >= at) next = next.nextElementSibling;
    list.insertBefore(item, next);
  }

  function setStatus(state, text) {
    status.dataset.state = state;
    status.textContent = text;
    document.body.dataset.live = state;
  }

  // Only once the stream is open: a plant stored between loading the list and opening the stream
  // would be in neither. Also after a reconnect, for the plants stored while it was down.
  function load() {
    fetch("/plants?limit=100")
      .then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.json();
      })
      .then(function (body) {
        body.plants.forEach(function (plant) { render(plant, false); });
        if (source.readyState === EventSource.OPEN) setStatus("live", "Live: new plants appear as they arrive.");
      })
      .catch(function () { setStatus("error", "Could not load the plants received so far."); });
  }

  function cell(row, text, className) {
    var td = document.createElement("td");
    td.textContent = text;
    if (className) td.className = className;
    row.appendChild(td);
  }
  var polling = false;
  function details() {
    if (polling) return;
    polling = true;
    fetch("/deliveries")
      .then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.json();
      })
      .then(function (body) {
        var rows = body.deliveries.map(function (entry) {
          var row = document.createElement("tr");
          row.dataset.webhookId = entry.webhookId;
          row.dataset.attempt = String(entry.attempt);
          row.dataset.duplicate = String(entry.duplicate);
          cell(row, entry.webhookId, "id");
          cell(row, entry.attempt + (entry.attemptSource === "seen" ? " (seen here)" : ""), "attempt");
          cell(row, entry.duplicate ? "duplicate" : "new", "duplicate");
          cell(row, String(entry.status), "status");
          cell(row, entry.handledMs + " ms", "handled");
          cell(row, new Date(entry.handledAt).toLocaleTimeString(), "at");
          return row;
        });
        document.getElementById("deliveries").replaceChildren.apply(document.getElementById("deliveries"), rows);
        var codes = Object.keys(body.refused).sort();
        document.getElementById("no-refused").hidden = codes.length > 0;
        document.getElementById("refused").replaceChildren.apply(document.getElementById("refused"), codes.map(function (code) {
          var item = document.createElement("li");
          item.dataset.status = code;
          item.textContent = code + ": " + body.refused[code];
          return item;
        }));
      })
      .catch(function () { /* the plants' status line tells about the connection */ })
      .finally(function () { polling = false; });
  }
  details();
  setInterval(details, 2000);

  var source = new EventSource("/events");
  source.addEventListener("open", load);
  source.addEventListener("error", function () { setStatus("reconnecting", "Disconnected; reconnecting…"); });
  source.addEventListener("plant", function (event) { render(JSON.parse(event.data), true); details(); });
})();
</script>
</body>
</html>
`;
