import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createRetryTimer } from "./create-retry-timer.js";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function timer(running = { value: true }) {
  const due: number[] = [];
  const retryTimer = createRetryTimer({
    pollIntervalMs: 1_000,
    isRunning: () => running.value,
    onDue: () => due.push(Date.now()),
  });
  return { retryTimer, due, running };
}

describe("createRetryTimer", () => {
  it("wakes the worker when a retry due before the next poll comes due, not before", async () => {
    const { retryTimer, due } = timer();
    const at = Date.now() + 300;
    retryTimer.wakeAt(at);
    await vi.advanceTimersByTimeAsync(299);
    expect(due).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(due).toEqual([at]);
  });

  it("leaves a retry due at or after the next poll to the poll", async () => {
    const { retryTimer, due } = timer();
    retryTimer.wakeAt(Date.now() + 1_000);
    retryTimer.wakeAt(Date.now() + 5_000);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(due).toEqual([]);
  });

  it("keeps one timer, for the earliest retry", async () => {
    const { retryTimer, due } = timer();
    const start = Date.now();
    retryTimer.wakeAt(start + 500);
    retryTimer.wakeAt(start + 800);
    retryTimer.wakeAt(start + 200);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(due).toEqual([start + 200]);
  });

  it("sets a new timer once the last one fired", async () => {
    const { retryTimer, due } = timer();
    const start = Date.now();
    retryTimer.wakeAt(start + 100);
    await vi.advanceTimersByTimeAsync(100);
    retryTimer.wakeAt(start + 400);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(due).toEqual([start + 100, start + 400]);
  });

  it("waits out the rest when its timer fires before the retry is due (the loop's time lags the clock)", async () => {
    const { retryTimer, due } = timer();
    const at = Date.now() + 500;
    retryTimer.wakeAt(at);
    // The clock falls 200 ms behind the timers, as Node's cached loop time does on a busy turn.
    vi.setSystemTime(Date.now() - 200);
    await vi.advanceTimersByTimeAsync(500);
    expect(due).toEqual([]);
    await vi.advanceTimersByTimeAsync(200);
    expect(due).toEqual([at]);
  });

  it("sets nothing while the worker is stopped", async () => {
    const { retryTimer, due } = timer({ value: false });
    retryTimer.wakeAt(Date.now() + 100);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(due).toEqual([]);
  });

  it("clear() cancels the timer and forgets its time, so a restarted worker sets a later one", async () => {
    const { retryTimer, due } = timer();
    const start = Date.now();
    retryTimer.wakeAt(start + 100);
    retryTimer.clear();
    retryTimer.wakeAt(start + 300);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(due).toEqual([start + 300]);
  });

  it("does not keep the process alive", () => {
    vi.useRealTimers();
    const set = vi.spyOn(globalThis, "setTimeout");
    const { retryTimer } = timer();
    retryTimer.wakeAt(Date.now() + 500);
    const handle = set.mock.results[0]?.value as NodeJS.Timeout;
    expect(handle.hasRef()).toBe(false);
    retryTimer.clear();
  });
});
