import { cpus } from "node:os";

export interface MachineInfo {
  cpus: number;
  cpuModel: string;
  node: string;
  platform: string;
}

export function machineInfo(): MachineInfo {
  const list = cpus();
  return {
    cpus: list.length,
    cpuModel: list[0]?.model.trim() ?? "unknown",
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
  };
}
