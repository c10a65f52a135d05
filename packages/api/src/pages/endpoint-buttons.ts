import { type Act, button, notice } from "@plant-store/app-shell/page-kit";
import type { Endpoint } from "./api-types.js";
import { editEventTypes, editFilter, editUrl } from "./endpoint-forms.js";

/**
 * The buttons the operator page and the portal both give an endpoint's row: disable or enable, event
 * types, filter, move, and rotate the secret (the new one shown once, then `afterRotation`, what each reader
 * does next with it).
 */
export function endpointButtons(endpoint: Endpoint, act: Act, afterRotation: string) {
  const id = endpoint.id;
  const toggle =
    endpoint.status === "active"
      ? button("Disable", "disable", (b) => act(b, "POST", `/endpoints/${id}/disable`))
      : button("Enable", "enable", (b) => act(b, "POST", `/endpoints/${id}/enable`));
  const subscribe = button("Event types", "event-types", () => editEventTypes(endpoint));
  const filter = button("Filter", "filter", () => editFilter(endpoint));
  const move = button("Move", "move", () => editUrl(endpoint));
  const rotate = button("Rotate secret", "rotate", (b) =>
    act<{ endpoint: Endpoint; secret: string }>(
      b,
      "POST",
      `/endpoints/${id}/rotate-secret`,
      undefined,
      (data) =>
        notice(
          `Endpoint ${id} now signs with ${data.endpoint.secretCount} secrets. The new one, shown once: ${data.secret} ${afterRotation}`,
        ),
    ),
  );
  return { toggle, subscribe, filter, move, rotate };
}
