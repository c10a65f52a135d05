/** The New Plant payload bytes, fixed when the plant is added so every attempt sends the same body. */
export function plantBody(plant: { id: number; name: string; tag?: string | null | undefined }): string {
  return JSON.stringify(
    plant.tag === undefined || plant.tag === null
      ? { id: plant.id, name: plant.name }
      : { id: plant.id, name: plant.name, tag: plant.tag },
  );
}
