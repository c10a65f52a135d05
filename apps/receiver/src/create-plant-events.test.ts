import type { PassThrough } from "node:stream";
import { setImmediate as nextTurn } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { createPlantEvents, type OpenedStream } from "./create-plant-events.js";
import type { ReceivedPlant } from "./plant-store.js";

const plant = (id: number, size = 1000): ReceivedPlant => ({
  webhookId: `msg_${id}`,
  id,
  name: "x".repeat(size),
  receivedAt: new Date(0).toISOString(),
});

const streamOf = (opened: OpenedStream): PassThrough => {
  if ("refused" in opened) throw new Error(`refused: ${opened.refused}`);
  return opened.stream;
};

describe("createPlantEvents", () => {
  it("refuses to open a stream once closed", () => {
    const events = createPlantEvents();
    expect("stream" in events.open("127.0.0.1")).toBe(true);
    events.close();
    expect(events.open("127.0.0.1")).toEqual({ refused: "closed" });
    expect(events.size).toBe(0);
  });

  it("caps streams per client address and in total, and frees a place when a stream closes", async () => {
    const events = createPlantEvents({ maxStreams: 5, maxStreamsPerClient: 2 });
    const a1 = streamOf(events.open("10.0.0.1"));
    streamOf(events.open("10.0.0.1"));
    expect(events.open("10.0.0.1")).toEqual({ refused: "too-many-for-client" });
    streamOf(events.open("10.0.0.2"));
    streamOf(events.open("10.0.0.2"));
    streamOf(events.open("10.0.0.3"));
    expect(events.size).toBe(5);
    expect(events.open("10.0.0.4")).toEqual({ refused: "too-many" });
    a1.destroy();
    await nextTurn();
    expect(events.size).toBe(4);
    // The closed stream's place is free, for its own address and in total.
    streamOf(events.open("10.0.0.1"));
    expect(events.open("10.0.0.4")).toEqual({ refused: "too-many" });
    events.close();
  });

  it("drops every stream after maxAgeMs, so a client that reads nothing cannot keep its place", async () => {
    const events = createPlantEvents({ maxAgeMs: 20, maxStreamsPerClient: 1 });
    const idle = streamOf(events.open("10.0.0.1"));
    expect(events.open("10.0.0.1")).toEqual({ refused: "too-many-for-client" });
    await new Promise<void>((resolve) => idle.once("close", resolve));
    expect(idle.destroyed).toBe(true);
    expect(events.size).toBe(0);
    streamOf(events.open("10.0.0.1"));
    events.close();
  });

  it("drops a stream whose reader falls more than maxBufferedBytes behind, and keeps one that reads", async () => {
    const events = createPlantEvents({ maxBufferedBytes: 64 * 1024 });
    const stalled = streamOf(events.open("10.0.0.1"));
    const reading = streamOf(events.open("10.0.0.2"));
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
    const stalled = streamOf(events.open("10.0.0.1"));
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
