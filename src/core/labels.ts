/**
 * Short human labels of markets for terminals and charts: a market is named by its question
 * (shortened at a word boundary), a token by its outcome and its market's question. Pure.
 */

/**
 * The question shortened to at most `max` characters (default 40), cut at a word boundary with
 * "…"; whitespace collapsed. A question that fits is returned whole.
 */
export function shortQuestion(question: string, max = 40): string {
  const q = question.replace(/\s+/g, ' ').trim();
  if (q.length <= max) return q;
  const room = Math.max(1, max - 1);
  const cut = q.slice(0, room);
  const space = cut.lastIndexOf(' ');
  // a word boundary when there is one in the second half; a hard cut otherwise
  const head = space >= room / 2 ? cut.slice(0, space) : cut;
  return `${head.replace(/[\s,;:.-]+$/, '')}…`;
}

/** A token's label: `Yes · Will BTC be above…` (the outcome, then the shortened question). */
export function tokenLabel(outcome: string, question: string, max = 40): string {
  return `${outcome} · ${shortQuestion(question, max)}`;
}
