/** What a bench child process reports over IPC. */
export interface ProcessStats {
  /** `process.cpuUsage()` of the child: user + system microseconds since it started. */
  cpuMicros: number;
  rss: number;
  /** Highest RSS seen by the child's own sampler (bytes). */
  peakRss: number;
  /** Requests (or deliveries) the child counted as handled successfully. */
  handled: number;
  /** Epoch ms (sub-ms precision) of the first and the latest handled request; 0 before any. */
  firstHandledAt: number;
  lastHandledAt: number;
}

export type ParentMessage =
  | { type: "stats"; id: number; reset?: boolean }
  | { type: "command"; id: number; payload: unknown };

export type ChildMessage =
  | { type: "listening"; port: number }
  | { type: "ready" }
  | { type: "stats"; id: number; stats: ProcessStats }
  | { type: "reply"; id: number; payload: unknown; error?: string };
