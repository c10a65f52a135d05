export interface RetryTimerOptions {
  /** Retries due this far off or later are left to the poll. */
  pollIntervalMs: number;
  /** False while the worker is stopped: nothing is set. */
  isRunning: () => boolean;
  /** The earliest retry is due: claim now. */
  onDue: () => void;
  /** The worker's clock (Unix ms); default `Date.now`. */
  now?: () => number;
}

export interface RetryTimer {
  /** Wakes the worker at `at` (Unix ms) when that is before the next poll and before the timer already set. */
  wakeAt(at: number): void;
  /** Forgets the timer and its time, so a restarted worker sets it again. */
  clear(): void;
}

/** A retry due before the next poll wakes the worker when it is due: one timer, for the earliest. */
export function createRetryTimer(options: RetryTimerOptions): RetryTimer {
  const { pollIntervalMs, isRunning, onDue } = options;
  const now = options.now ?? Date.now;
  let timer: NodeJS.Timeout | undefined;
  let timerAt = Number.POSITIVE_INFINITY;

  // Node counts a timer from the event loop's cached time, which lags the clock by however long the
  // current turn has run: on a busy process the timer fires early, the retry is not due yet and
  // nothing would wake the worker again before the next poll. So it checks, and waits out the rest.
  function fire(): void {
    const left = timerAt - now();
    if (left > 0) {
      timer = setTimeout(fire, left);
      timer.unref();
      return;
    }
    timer = undefined;
    timerAt = Number.POSITIVE_INFINITY;
    onDue();
  }

  return {
    wakeAt(at) {
      const delay = at - now();
      if (!isRunning() || delay >= pollIntervalMs || at >= timerAt) return;
      if (timer) clearTimeout(timer);
      timerAt = at;
      timer = setTimeout(fire, Math.max(0, delay));
      timer.unref();
    },
    clear() {
      if (timer) clearTimeout(timer);
      timer = undefined;
      timerAt = Number.POSITIVE_INFINITY;
    },
  };
}
