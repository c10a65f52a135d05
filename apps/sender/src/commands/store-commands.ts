import type { Command } from "commander";

/** A top-level command as `--help` lists it, and how to load the whole of it. */
export interface LazyCommand {
  name: string;
  /** How `--help` names it: `serve [options]` when it has options, the name alone when it has subcommands. */
  term: string;
  description: string;
  load(): Promise<Command>;
}

/**
 * The store's top-level commands. Each module is imported only when its command runs (or its own help
 * is asked for): `plant-store --help` loads commander and nothing else, and `plants add` never loads
 * the HTTP server, the logger, the metrics or got. The names, terms and descriptions repeat what each
 * command sets itself; `create-program.test.ts` compares the two helps word for word.
 */
export const STORE_COMMANDS: readonly LazyCommand[] = [
  {
    name: "serve",
    term: "serve [options]",
    description: "Run the delivery worker and the admin API (GET /healthz, GET /metrics)",
    load: async () => (await import("./serve-command.js")).serveCommand(),
  },
  {
    name: "plants",
    term: "plants",
    description: "Add and list plants",
    load: async () => (await import("./plants-command.js")).plantsCommand(),
  },
  {
    name: "endpoints",
    term: "endpoints",
    description: "Manage the receivers plants are delivered to",
    load: async () => (await import("./endpoints-command.js")).endpointsCommand(),
  },
  {
    name: "subscribers",
    term: "subscribers",
    description: "Manage subscribers: who may serve their own endpoints with a token or a portal link",
    load: async () => (await import("./subscribers-command.js")).subscribersCommand(),
  },
  {
    name: "deliveries",
    term: "deliveries",
    description: "Inspect and retry deliveries",
    load: async () => (await import("./deliveries-command.js")).deliveriesCommand(),
  },
  {
    name: "replay",
    term: "replay [options]",
    description: "Deliver every plant added since a time (within the retention) to one endpoint again",
    load: async () => (await import("./deliveries-command.js")).replayCommand(),
  },
  {
    name: "listen",
    term: "listen [options]",
    description:
      "Forward the deliveries of a temporary endpoint of a running store to a receiver on this machine, over a connection this command opens: the store never connects to you. Answers go into the store's attempt log; the endpoint is removed when this stops (Ctrl-C)",
    load: async () => (await import("./listen-command.js")).listenCommand(),
  },
];
