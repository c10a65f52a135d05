import { setImmediate as nextTurn } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { createPlantEvents } from "./create-plant-events.js";
import type { StoredPlant } from "./plant-store.js";

const plant = (id: number, size = 1000): StoredPlant => ({
  webhookId: `msg_${id}`,
  id,
  name: "x".repeat(size),
  tag: null,
  receivedAt: new Date(0).toISOString(),
});

describe("createPlantEvents", () => {
  it("refuses to open a stream once closed", () => {
    const events = createPlantEvents();
    expect(events.open()).toBeDefined();
    events.close();
    expect(events.open()).toBeUndefined();
    expect(events.size).toBe(0);
  });

  it("drops a stream whose reader falls more than maxBufferedBytes behind, and keeps one that reads", async () => {
    const events = createPlantEvents({ maxBufferedBytes: 64 * 1024 });
    const stalled = events.open();
    const reading = events.open();
    if (stalled === undefined || reading === undefined) throw new Error("not opened");
    let read = 0;
    reading.on("data", (chunk: Buffer) => {
      read += chunk.length;
    });
    for (let i = 0; i < 200 && !stalled.destroyed; i++) {
      events.publish(plant(i));
      await nextTurn();
    }
    expect(stalled.destroyed).toBe(true);
    expect(reading.destroyed).toBe(false);
    expect(events.size).toBe(1);
    // The reader got everything published, 64 KiB and more.
    expect(read).toBeGreaterThan(64 * 1024);
    events.close();
  });

  it("drops a stream that has fallen behind and does not catch up within drainTimeoutMs", async () => {
    const events = createPlantEvents({ drainTimeoutMs: 20 });
    const stalled = events.open();
    if (stalled === undefined) throw new Error("not opened");
    const closed = new Promise<void>((resolve) => stalled.once("close", resolve));
    // Past the stream's own buffers (16 KiB each side), so writes report that it is behind.
    for (let i = 0; i < 40; i++) events.publish(plant(i));
    expect(stalled.writableNeedDrain).toBe(true);
    await closed;
    expect(stalled.destroyed).toBe(true);
    expect(events.size).toBe(0);
    events.close();
  });
});
