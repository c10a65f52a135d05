import type { DeliveryAttempted } from "@plant-store/app-shell";
import type { AttemptEvent } from "@plant-store/sender";
import { describe, expectTypeOf, it } from "vitest";

// app-shell cannot import the sender (a receiver would carry the sender library): the event's schema is
// written there, and this check (run by tsc) keeps the two from drifting apart.
describe("the delivery.attempted event", () => {
  it("carries exactly the worker's AttemptEvent, beside its name and the worker's id", () => {
    expectTypeOf<Omit<DeliveryAttempted, "event" | "workerId">>().toEqualTypeOf<AttemptEvent>();
  });
});
