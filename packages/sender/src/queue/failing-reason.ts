import { formatDuration } from "@plant-store/types";

/** The reason stored on an endpoint disabled for failing too long: `failing continuously for 5.2d`. */
export function failingReason(failingForMs: number): string {
  return `failing continuously for ${formatDuration(failingForMs)}`;
}
