import type { Api } from "./create-api.js";
import { SIGNED_OUT } from "./create-api.js";
import { notice } from "./notice.js";

export type Act = <T>(
  button: HTMLButtonElement,
  method: string,
  path: string,
  body?: unknown,
  done?: (data: T) => void,
) => void;

/**
 * A button's call: the button is disabled while it runs, the page polls after it, and a failure is
 * shown in the notice (an ended session was shown already).
 */
export function createAct(api: Api, poll: () => Promise<void>): Act {
  return (button, method, path, body, done) => {
    button.disabled = true;
    api<never>(method, path, body)
      .then((data) => {
        done?.(data);
        return poll();
      })
      .catch((error: Error) => {
        if (error.message !== SIGNED_OUT) notice(`Failed: ${error.message}`);
      })
      .finally(() => {
        button.disabled = false;
      });
  };
}
