/** A due delivery a claim may take: its owner (a subscriber's id, 0 for the operator) and its place in its endpoint's queue. */
export interface ClaimCandidate {
  id: number;
  owner: number;
  /** 1 for the endpoint's earliest due delivery, 2 for the next... */
  place: number;
  nextAttemptAt: number;
}

const byPlace = (a: ClaimCandidate, b: ClaimCandidate) =>
  a.place - b.place || a.nextAttemptAt - b.nextAttemptAt || a.id - b.id;

/**
 * The deliveries a claim takes, owners taking turns: each owner's first (its endpoints' earliest due
 * first, one per endpoint before any endpoint's second), then each owner's second..., at most
 * `perOwner` of an owner and `limit` in all. So an owner with a large backlog or many endpoints takes
 * one turn per round like an owner with one delivery due. PostgreSQL's claim orders the same way in SQL.
 */
export function takeTurns(candidates: readonly ClaimCandidate[], perOwner: number, limit: number): number[] {
  const turns = new Map<number, number>();
  const ranked = [...candidates].sort(byPlace).map((candidate) => {
    const turn = (turns.get(candidate.owner) ?? 0) + 1;
    turns.set(candidate.owner, turn);
    return { candidate, turn };
  });
  return ranked
    .filter(({ turn }) => turn <= perOwner)
    .sort((a, b) => a.turn - b.turn || byPlace(a.candidate, b.candidate))
    .slice(0, Math.max(0, limit))
    .map(({ candidate }) => candidate.id);
}
