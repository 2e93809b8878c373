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
  const head = q[room] === ' ' ? cut : space >= room / 2 ? cut.slice(0, space) : cut;
  return `${head.replace(/[\s,;:.-]+$/, '')}…`;
}

/** A token's label: `Yes · Will BTC be above…` (the outcome, then the shortened question). */
export function tokenLabel(outcome: string, question: string, max = 40): string {
  return `${outcome} · ${shortQuestion(question, max)}`;
}

/**
 * Each question shortened (as `shortQuestion`) to at least `max` characters, and longer where two
 * different questions would read the same ("Will the price of Ethereum be above…" twice): those
 * grow until they differ or are whole. Same order as the input; equal questions, equal labels.
 */
export function distinctShortQuestions(questions: readonly string[], max = 40): string[] {
  const unique = [...new Set(questions)];
  const len = new Map(unique.map((q) => [q, max]));
  for (let round = 0; round < 64; round++) {
    const byLabel = new Map<string, string[]>();
    for (const q of unique) {
      const l = shortQuestion(q, len.get(q)!);
      byLabel.set(l, [...(byLabel.get(l) ?? []), q]);
    }
    let grew = false;
    for (const qs of byLabel.values()) {
      if (qs.length < 2) continue;
      for (const q of qs) {
        const n = len.get(q)!;
        if (n < q.length) {
          len.set(q, n + 8);
          grew = true;
        }
      }
    }
    if (!grew) break;
  }
  return questions.map((q) => shortQuestion(q, len.get(q)!));
}
