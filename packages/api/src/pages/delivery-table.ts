import { type Act, type Api, button, el, syncRows } from "@plant-store/app-shell/page-kit";
import type { Delivery, DeliveryDetails } from "./api-types.js";
import { deliveryState, when } from "./formats.js";

/**
 * The deliveries table of the store page and the portal: a row per delivery, and under each one opened
 * ("Attempts") a row of its attempts, fetched on every poll while open.
 */
export function createDeliveryTable(options: {
  act: Act;
  /** Redraws the page from what it has (after a row is opened or closed). */
  render: () => void;
  poll: () => Promise<void>;
}) {
  const { act } = options;
  const expanded = new Set<number>();
  const details = new Map<number, DeliveryDetails>();

  function deliveryRow(delivery: Delivery): HTMLElement {
    const shown = deliveryState(delivery);
    const open = expanded.has(delivery.id);
    const actions = [
      button(open ? "Hide attempts" : "Attempts", "attempts", () => {
        if (expanded.has(delivery.id)) {
          expanded.delete(delivery.id);
          details.delete(delivery.id);
        } else expanded.add(delivery.id);
        options.render();
        void options.poll();
      }),
    ];
    if (delivery.status === "failed" || shown === "retrying")
      actions.push(
        button(shown === "failed" ? "Retry" : "Retry now", "retry", (b) => {
          expanded.add(delivery.id);
          act(b, "POST", `/deliveries/${delivery.id}/retry`);
        }),
      );
    let answer = delivery.lastStatus !== null ? `HTTP ${delivery.lastStatus}` : "";
    if (delivery.lastError) answer += (answer ? " · " : "") + delivery.lastError;
    return el("tr", { "data-delivery-id": delivery.id, "data-status": shown }, [
      el("td", { text: delivery.id }),
      el("td", { className: "wrap", text: delivery.webhookId }),
      el("td", { text: delivery.endpointId }),
      el("td", { className: "event-type", text: delivery.eventType === null ? "—" : delivery.eventType }),
      el("td", {}, [
        el("span", { className: `state state-${shown}`, text: shown }),
        shown === "retrying"
          ? el("div", { className: "muted next", text: `next ${when(delivery.nextAttemptAt)}` })
          : null,
      ]),
      el("td", { className: "attempts", text: delivery.attempts }),
      el("td", { className: "wrap last", text: answer || "—", max: 300 }),
      el("td", { className: "muted", text: when(delivery.updatedAt) }),
      el("td", {}, actions),
    ]);
  }

  function attemptsRow(delivery: Delivery): HTMLElement {
    const attempts = details.get(delivery.id)?.attempts;
    const body = el(
      "tbody",
      {},
      (attempts ?? []).map((attempt) =>
        el(
          "tr",
          {
            className: "attempt",
            "data-attempt": attempt.attempt,
            "data-status": attempt.status === null ? "none" : attempt.status,
          },
          [
            el("td", { text: attempt.attempt }),
            el("td", { text: when(attempt.startedAt) }),
            el("td", {
              className: "attempt-status",
              text: attempt.status === null ? "no answer" : attempt.status,
            }),
            el("td", { text: `${attempt.durationMs} ms` }),
            el("td", { text: attempt.outcome }),
            el("td", { className: "wrap attempt-error", text: attempt.error || "—", max: 500 }),
            el("td", { className: "wrap" }, [
              el("pre", { className: "answer", text: attempt.responseBody, max: 1024 }),
            ]),
          ],
        ),
      ),
    );
    const heads = ["#", "Started", "Status", "Latency", "Outcome", "Error", "Answer (first bytes)"];
    const table = el("table", {}, [
      el("thead", {}, [
        el(
          "tr",
          {},
          heads.map((h) => el("th", { text: h })),
        ),
      ]),
      body,
    ]);
    const shown = attempts
      ? attempts.length
        ? table
        : el("span", { className: "muted", text: "No attempt yet." })
      : el("span", { className: "muted", text: "Loading…" });
    return el("tr", { className: "details", "data-details-for": delivery.id }, [
      el("td", { colspan: 9 }, [shown]),
    ]);
  }

  type Row =
    | { kind: "delivery"; delivery: Delivery; open: boolean }
    | { kind: "details"; delivery: Delivery; details: DeliveryDetails | null };

  return {
    /** Keeps the table's rows (and its attempts rows) to these deliveries. */
    sync(tbody: HTMLElement, deliveries: readonly Delivery[]): void {
      const rows: Row[] = [];
      for (const delivery of deliveries) {
        rows.push({ kind: "delivery", delivery, open: expanded.has(delivery.id) });
        if (expanded.has(delivery.id))
          rows.push({ kind: "details", delivery, details: details.get(delivery.id) ?? null });
      }
      syncRows(
        tbody,
        rows,
        (row) => `${row.kind}-${row.delivery.id}`,
        (row) => (row.kind === "delivery" ? deliveryRow(row.delivery) : attemptsRow(row.delivery)),
      );
    },
    /** The attempts of the open deliveries among these, fetched again. */
    async refreshDetails(api: Api, deliveries: readonly Delivery[]): Promise<void> {
      const shown = new Set(deliveries.map((d) => d.id));
      await Promise.all(
        Array.from(expanded)
          .filter((id) => shown.has(id))
          .map(async (id) => {
            details.set(id, await api<DeliveryDetails>("GET", `/deliveries/${id}`));
          }),
      );
    },
    /** A delivery retried from elsewhere, opened so its new attempt shows. */
    open(id: number): void {
      expanded.add(id);
    },
  };
}
