/** The plants the demo adds, cycled when more are asked for. */
export const DEMO_PLANTS: ReadonlyArray<{ name: string; tag?: string }> = [
  { name: "Monstera deliciosa", tag: "tropical" },
  { name: "Ficus lyrata" },
  { name: "Calathea orbifolia", tag: "tropical" },
  { name: "Sansevieria trifasciata", tag: "succulent" },
  { name: "Pilea peperomioides" },
  { name: "Strelitzia nicolai", tag: "tropical" },
  { name: "Echeveria elegans", tag: "succulent" },
  { name: "Nephrolepis exaltata", tag: "fern" },
];
