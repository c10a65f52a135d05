import { describe, expect, it } from "vitest";
import { readAppEvent } from "./app-event.js";

describe("readAppEvent", () => {
  it("reads each event by its event field and keeps the line's time", () => {
    const line = {
      level: 30,
      time: 1700000000000,
      msg: "whatever the words are today",
      event: "webhook.handled",
      outcome: "received",
      status: 200,
      webhookId: "msg_1",
    };
    expect(readAppEvent(line)).toEqual({
      event: "webhook.handled",
      outcome: "received",
      status: 200,
      webhookId: "msg_1",
      time: 1700000000000,
    });
    expect(
      readAppEvent({ event: "plant.stored", plantId: 3, webhookId: "msg_1", name: "Fern" }),
    ).toMatchObject({
      plantId: 3,
    });
  });

  it("ignores lines without an event, unknown events, and events whose fields do not fit", () => {
    expect(readAppEvent({ msg: "plant received", webhookId: "msg_1" })).toBeUndefined();
    expect(readAppEvent({ event: "something.else" })).toBeUndefined();
    expect(
      readAppEvent({ event: "plant.stored", plantId: "3", webhookId: "msg_1", name: "Fern" }),
    ).toBeUndefined();
    expect(readAppEvent(null)).toBeUndefined();
  });
});
