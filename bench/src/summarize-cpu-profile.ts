import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileShare {
  label: string;
  /** Share of all sampled time, 0..1. */
  share: number;
}

/** Where a frame's code lives: the npm package, the workspace package, node itself, or the app. */
function moduleOf(url: string): string {
  if (url === "") return "(native code)";
  if (url.startsWith("node:")) return "node core";
  const pnpm = /node_modules\/\.pnpm\/[^/]+\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pnpm?.[1]) return pnpm[1];
  const plain = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (plain?.[1]) return plain[1];
  const workspace = /\/(packages|apps|bench)\/([^/]+)\//.exec(url);
  return workspace ? `${workspace[1]}/${workspace[2]}` : url;
}

/**
 * Self time of a `--cpu-prof` profile, grouped by function and by module, largest first: the
 * answer to "where does the time go" without opening DevTools.
 */
export function summarizeCpuProfile(
  path: string,
  top = 15,
): { functions: ProfileShare[]; modules: ProfileShare[] } {
  const profile = JSON.parse(readFileSync(path, "utf8")) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const functions = new Map<string, number>();
  const modules = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, index) => {
    const node = byId.get(id);
    const delta = profile.timeDeltas[index] ?? 0;
    if (node === undefined) return;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === "(idle)") return;
    total += delta;
    const file = url.split("/").slice(-1)[0] ?? "";
    const fn = `${functionName || "(anonymous)"} ${file}:${lineNumber + 1} [${moduleOf(url)}]`;
    functions.set(fn, (functions.get(fn) ?? 0) + delta);
    const mod = functionName.startsWith("(") ? functionName : moduleOf(url);
    modules.set(mod, (modules.get(mod) ?? 0) + delta);
  });
  const rank = (map: Map<string, number>) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([label, time]) => ({ label, share: total === 0 ? 0 : time / total }));
  return { functions: rank(functions), modules: rank(modules) };
}
