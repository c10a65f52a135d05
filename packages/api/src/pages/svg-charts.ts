import { el, show, syncRows } from "@plant-store/app-shell/page-kit";

// Last hour charts (GET /delivery-stats), drawn as SVG with DOM calls only (createElementNS,
// setAttribute, textContent): no markup from data, no style attributes (the page's CSP allows only its
// own stylesheet; classes carry the colours).

export interface Minute {
  start: string;
  attempts: number;
  succeeded: number;
  failed: number;
}

export interface EndpointLatency {
  endpointId: number;
  attempts: number;
  p50Ms: number;
  p95Ms: number;
}

export interface DeliveryStats {
  windowMinutes: number;
  attempts: number;
  succeeded: number;
  successRate: number | null;
  minutes: Minute[];
  endpoints: EndpointLatency[];
}

const SVG_NS = "http://www.w3.org/2000/svg";

function svgEl(tag: string, attrs: Record<string, unknown>, children: (Node | null)[] = []): SVGElement {
  const node = document.createElementNS(SVG_NS, tag) as SVGElement;
  for (const [name, value] of Object.entries(attrs)) {
    if (name === "text") node.textContent = show(value);
    else node.setAttribute(name, String(value));
  }
  for (const child of children) if (child) node.appendChild(child);
  return node;
}

const clock = (iso: string) => new Date(iso).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
const percent = (rate: number) => `${Math.round(rate * 1000) / 10} %`;

// Stacked bars, one slot per minute (the API answers every minute of the window): succeeded at the
// bottom, failed above; the left axis runs from 0 to the busiest minute. Over them, each minute's
// success rate (minutes with attempts only) against the right axis, 0 to 100 %.
function perMinuteChart(stats: DeliveryStats): SVGElement {
  const W = 720;
  const H = 200;
  const left = 44;
  const right = 40;
  const top = 10;
  const bottom = 34;
  const plotW = W - left - right;
  const plotH = H - top - bottom;
  const minutes = stats.minutes;
  const most = minutes.reduce((m, minute) => Math.max(m, minute.attempts), 0);
  const slot = plotW / minutes.length;
  const scale = most === 0 ? 0 : plotH / most;
  const label = "chart-label";
  const chart = svgEl(
    "svg",
    { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-labelledby": "per-minute-title", "data-max": most },
    [
      svgEl("title", {
        id: "per-minute-title",
        text:
          `Deliveries per minute, last ${stats.windowMinutes} minutes: ${stats.attempts} attempts, ` +
          `${stats.succeeded} succeeded, ${stats.attempts - stats.succeeded} failed`,
      }),
      svgEl("line", { class: "chart-axis", x1: left, y1: top + plotH, x2: left + plotW, y2: top + plotH }),
      svgEl("line", { class: "chart-axis", x1: left, y1: top, x2: left, y2: top + plotH }),
      svgEl("text", { class: `${label} y-max`, x: left - 4, y: top + 8, "text-anchor": "end", text: most }),
      svgEl("text", { class: label, x: left - 4, y: top + plotH, "text-anchor": "end", text: "0" }),
      svgEl("text", {
        class: label,
        x: 10,
        y: top + plotH / 2,
        "text-anchor": "middle",
        transform: `rotate(-90 10 ${top + plotH / 2})`,
        text: "attempts / min",
      }),
      svgEl("text", {
        class: label,
        x: left + plotW / 2,
        y: H - 2,
        "text-anchor": "middle",
        text: "minute (local time)",
      }),
      svgEl("line", { class: "chart-axis", x1: left + plotW, y1: top, x2: left + plotW, y2: top + plotH }),
      svgEl("text", { class: label, x: left + plotW + 4, y: top + 8, text: "100 %" }),
      svgEl("text", { class: label, x: left + plotW + 4, y: top + plotH, text: "0 %" }),
    ],
  );
  const rates: { minute: Minute; x: number; y: number }[] = [];
  minutes.forEach((minute, index) => {
    const x = left + index * slot;
    const ok = minute.succeeded * scale;
    const failed = minute.failed * scale;
    const width = Math.max(slot - 2, 1);
    const summary = minute.attempts
      ? `${minute.attempts} attempts, ${minute.succeeded} succeeded, ${minute.failed} failed`
      : "no attempts";
    chart.appendChild(
      svgEl(
        "g",
        {
          class: "minute",
          "data-start": minute.start,
          "data-attempts": minute.attempts,
          "data-succeeded": minute.succeeded,
          "data-failed": minute.failed,
        },
        [
          svgEl("title", { text: `${clock(minute.start)}: ${summary}` }),
          // A transparent slot the height of the plot, so every minute has something to hover.
          svgEl("rect", { x, y: top, width: slot, height: plotH, fill: "transparent" }),
          minute.succeeded
            ? svgEl("rect", { class: "bar-succeeded", x: x + 1, y: top + plotH - ok, width, height: ok })
            : null,
          minute.failed
            ? svgEl("rect", {
                class: "bar-failed",
                x: x + 1,
                y: top + plotH - ok - failed,
                width,
                height: failed,
              })
            : null,
        ],
      ),
    );
    if (minute.attempts)
      rates.push({ minute, x: x + slot / 2, y: top + plotH * (1 - minute.succeeded / minute.attempts) });
    // A time under every 15th minute and the last.
    if (index % 15 === 0 || index === minutes.length - 1)
      chart.appendChild(
        svgEl("text", {
          class: `${label} x-tick`,
          x: x + slot / 2,
          y: top + plotH + 14,
          "text-anchor": "middle",
          text: clock(minute.start),
        }),
      );
  });
  // Drawn last, over the bars; a point per minute, so a lone minute still shows.
  chart.appendChild(
    svgEl("g", { class: "success-rate-line" }, [
      svgEl("title", { text: "Success rate per minute" }),
      rates.length > 1
        ? svgEl("polyline", { class: "rate-line", points: rates.map((p) => `${p.x},${p.y}`).join(" ") })
        : null,
      ...rates.map((p) =>
        svgEl("circle", { class: "rate-point", cx: p.x, cy: p.y, r: 2.5, "data-start": p.minute.start }, [
          svgEl("title", {
            text: `${clock(p.minute.start)}: ${percent(p.minute.succeeded / p.minute.attempts)} succeeded`,
          }),
        ]),
      ),
    ]),
  );
  return chart;
}

// p50 and p95 of one endpoint as two bars against the slowest p95 shown.
function latencyBars(entry: EndpointLatency, slowest: number): SVGElement {
  const W = 200;
  const H = 16;
  const width = (ms: number) => (slowest === 0 ? 0 : Math.max((ms / slowest) * W, 1));
  return svgEl(
    "svg",
    { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": `p50 ${entry.p50Ms} ms, p95 ${entry.p95Ms} ms` },
    [
      svgEl("title", { text: `Endpoint ${entry.endpointId}: p50 ${entry.p50Ms} ms, p95 ${entry.p95Ms} ms` }),
      svgEl("rect", { class: "latency-p95", x: 0, y: 2, width: width(entry.p95Ms), height: 12 }),
      svgEl("rect", { class: "latency-p50", x: 0, y: 5, width: width(entry.p50Ms), height: 6 }),
    ],
  );
}

function latencyRow(item: { entry: EndpointLatency; slowest: number }): HTMLElement {
  const entry = item.entry;
  return el("tr", { "data-latency-endpoint": entry.endpointId }, [
    el("td", { text: entry.endpointId }),
    el("td", { className: "latency-attempts", text: entry.attempts }),
    el("td", { className: "p50", text: `${entry.p50Ms} ms` }),
    el("td", { className: "p95", text: `${entry.p95Ms} ms` }),
    el("td", { className: "latency-bars" }, [latencyBars(entry, item.slowest)]),
  ]);
}

/** Draws the charts into the page's #success-rate, #per-minute and #latency, when the numbers changed. */
export function createChartsView(parts: {
  successRate: HTMLElement;
  perMinute: HTMLElement;
  latency: HTMLElement;
  noLatency: HTMLElement;
}) {
  let shownKey: string | null = null;
  return function draw(stats: DeliveryStats): void {
    // Redrawn only when the numbers changed (until moves every poll; the buckets rarely do).
    const key = JSON.stringify([stats.minutes, stats.endpoints]);
    if (key === shownKey) return;
    shownKey = key;
    parts.successRate.dataset.rate = stats.successRate === null ? "" : String(stats.successRate);
    parts.successRate.textContent =
      stats.successRate === null
        ? "Success rate: no attempts in the last hour."
        : `Success rate: ${percent(stats.successRate)} (${stats.succeeded} of ${stats.attempts} attempts succeeded, ` +
          `${stats.attempts - stats.succeeded} failed)`;
    parts.perMinute.replaceChildren(perMinuteChart(stats));
    const slowest = stats.endpoints.reduce((m, entry) => Math.max(m, entry.p95Ms), 0);
    syncRows(
      parts.latency,
      stats.endpoints.map((entry) => ({ entry, slowest })),
      (item) => `l${item.entry.endpointId}`,
      latencyRow,
    );
    parts.noLatency.hidden = stats.endpoints.length > 0;
  };
}
