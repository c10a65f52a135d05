import type Database from "better-sqlite3";
import type { PlantStore, ReceivedPlant } from "./plant-store.js";

interface Row {
  webhook_id: string;
  plant_id: number;
  name: string;
  tag: string | null;
  received_at: string;
}

const toPlant = (row: Row): ReceivedPlant => ({
  webhookId: row.webhook_id,
  id: row.plant_id,
  name: row.name,
  ...(row.tag === null ? {} : { tag: row.tag }),
  receivedAt: row.received_at,
});

export function createSqlitePlantStore(db: Database.Database): PlantStore {
  db.exec(`CREATE TABLE IF NOT EXISTS plants (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    webhook_id TEXT NOT NULL UNIQUE,
    plant_id INTEGER NOT NULL,
    name TEXT NOT NULL,
    tag TEXT,
    received_at TEXT NOT NULL
  )`);
  const insert = db.prepare<[string, number, string, string | null, string], Row>(
    `INSERT INTO plants (webhook_id, plant_id, name, tag, received_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (webhook_id) DO NOTHING
     RETURNING webhook_id, plant_id, name, tag, received_at`,
  );
  const list = db.prepare<[number], Row>(
    "SELECT webhook_id, plant_id, name, tag, received_at FROM plants ORDER BY seq DESC LIMIT ?",
  );
  return {
    async add(plant, webhookId, receivedAt) {
      // all(), never get(): with get() the autocommit happens when the statement is reset, and a
      // failed commit (read-only file, disk full) is swallowed there, so a plant that was never
      // stored would be acknowledged.
      const [row] = insert.all(webhookId, plant.id, plant.name, plant.tag ?? null, receivedAt.toISOString());
      return row === undefined ? undefined : toPlant(row);
    },
    async list(limit) {
      return list.all(limit).map(toPlant);
    },
    async ping() {
      db.prepare("SELECT 1").get();
    },
  };
}
