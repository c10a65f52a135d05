import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { invokedCommandName } from "./commands/invoked-command-name.js";
import { STORE_COMMANDS } from "./commands/store-commands.js";
import { createProgram } from "./create-program.js";

/** What `--help` prints for a command, without writing it anywhere. */
function helpOf(command: Command): string {
  return command.helpInformation();
}

const named = (program: Command, name: string) => program.commands.find((c) => c.name() === name) as Command;

describe("createProgram", () => {
  it("prints the same top-level help with no command loaded as with every command loaded", async () => {
    const lazy = await createProgram(["--help"]);
    const full = await createProgram([], { loadAll: true });
    expect(helpOf(lazy)).toBe(helpOf(full));
    // Not vacuous: the full tree has each command's options and subcommands, the lazy one none of them.
    expect(named(full, "plants").commands.map((c) => c.name())).toEqual(["add", "list"]);
    expect(named(lazy, "plants").commands).toEqual([]);
    expect(helpOf(lazy)).toContain("serve [options]");
  });

  it("loads the whole of the command named, and only that one", async () => {
    const program = await createProgram(["plants", "add", "--name", "Monstera"]);
    expect(named(program, "plants").commands.map((c) => c.name())).toEqual(["add", "list"]);
    for (const other of ["serve", "endpoints", "deliveries", "replay"]) {
      expect(named(program, other).commands).toEqual([]);
      expect(named(program, other).options).toEqual([]);
    }
    const serve = await createProgram(["serve", "--port", "0"]);
    expect(named(serve, "serve").options.map((o) => o.long)).toContain("--admin-token");
  });

  it("keeps each listed name, term and description equal to the command's own", async () => {
    for (const entry of STORE_COMMANDS) {
      const command = await entry.load();
      expect(command.name()).toBe(entry.name);
      expect(command.description()).toBe(entry.description);
      const full = await createProgram([], { loadAll: true });
      expect(full.createHelp().subcommandTerm(named(full, entry.name))).toBe(entry.term);
    }
  });
});

describe("invokedCommandName", () => {
  it("names the first argument that is not an option", () => {
    expect(invokedCommandName(["plants", "add", "--name", "x"])).toBe("plants");
    expect(invokedCommandName(["--help", "serve"])).toBe("serve");
  });
  it("names the command after help, and none for bare help or no arguments", () => {
    expect(invokedCommandName(["help", "endpoints"])).toBe("endpoints");
    expect(invokedCommandName(["help"])).toBeUndefined();
    expect(invokedCommandName(["--help"])).toBeUndefined();
    expect(invokedCommandName([])).toBeUndefined();
  });
});
