/**
 * The positions outside the book in the matching engine: the relayer's split, merge and redeem,
 * and the neg-risk conversion. Available balances only (what orders reserve stays locked); all or
 * nothing; exact micro-units. The public methods and their documentation are MatchingEngine's
 * (engine.ts).
 *
 * For the matching engine only (src/exchange/matching/engine.ts).
 */
import { formatAmount } from '../../core/units.ts';
import type { PositionOpCode, PositionOpResult, TokenDelta } from './types.ts';
import type { EngineCore } from './engine-core.ts';
import type { Market } from './market.ts';

/**
 * The neg-risk adapter's account: in a conversion it takes the NO tokens given up and holds the NO
 * side of the complete sets it mints (see `MatchingEngine.convert`).
 */
export const NEG_RISK_ADAPTER_ACCOUNT = '0xada0000000000000000000000000000000000000';

function opReject(code: PositionOpCode, message: string): PositionOpResult {
  return { ok: false, code, message };
}

function opOk(collateral: number, tokens: TokenDelta[]): PositionOpResult {
  return { ok: true, collateral, tokens };
}

/** The refusal of a position operation's amount, or null when it is a positive safe integer (micro). */
function amountError(amount: number): PositionOpResult | null {
  return Number.isSafeInteger(amount) && amount > 0
    ? null
    : opReject('INVALID_AMOUNT', `amount must be a positive integer of micro-units, got ${amount}`);
}

/** `MatchingEngine.split` (engine.ts). */
export function split(
  c: EngineCore,
  account: string,
  conditionId: string,
  amount: number,
  now: number,
): PositionOpResult {
  c.advance(now);
  const bad = amountError(amount);
  if (bad !== null) return bad;
  const m = c.markets.get(conditionId);
  if (m === undefined) return opReject('MARKET_NOT_FOUND', `unknown market ${conditionId}`);
  const a = c.accounts.get(account);
  const have = a === undefined ? 0 : a.collateral;
  if (a === undefined || have < amount)
    return opReject(
      'NOT_ENOUGH_BALANCE',
      `not enough collateral: split needs ${formatAmount(amount)}, ${formatAmount(have)} available`,
    );
  c.beginOp();
  a.collateral -= amount;
  a.tok(m.def.yesToken, m.idx << 1).available += amount;
  a.tok(m.def.noToken, (m.idx << 1) | 1).available += amount;
  c.touchAcct(a);
  c.endOp(now);
  return opOk(-amount, [
    { tokenId: m.def.yesToken, delta: amount },
    { tokenId: m.def.noToken, delta: amount },
  ]);
}

/** `MatchingEngine.merge` (engine.ts). */
export function merge(
  c: EngineCore,
  account: string,
  conditionId: string,
  amount: number,
  now: number,
): PositionOpResult {
  c.advance(now);
  const bad = amountError(amount);
  if (bad !== null) return bad;
  const m = c.markets.get(conditionId);
  if (m === undefined) return opReject('MARKET_NOT_FOUND', `unknown market ${conditionId}`);
  const a = c.accounts.get(account);
  const y = a?.balByTok[m.idx << 1];
  const n = a?.balByTok[(m.idx << 1) | 1];
  const hy = y === undefined ? 0 : y.available;
  const hn = n === undefined ? 0 : n.available;
  if (a === undefined || y === undefined || n === undefined || hy < amount || hn < amount)
    return opReject(
      'NOT_ENOUGH_BALANCE',
      `not enough tokens: merge needs ${formatAmount(amount)} of each outcome, ${formatAmount(hy)} YES and ${formatAmount(hn)} NO available`,
    );
  c.beginOp();
  y.available -= amount;
  n.available -= amount;
  a.collateral += amount;
  c.touchAcct(a);
  c.endOp(now);
  return opOk(amount, [
    { tokenId: m.def.yesToken, delta: -amount },
    { tokenId: m.def.noToken, delta: -amount },
  ]);
}

/** `MatchingEngine.redeem` (engine.ts). */
export function redeem(
  c: EngineCore,
  account: string,
  conditionId: string,
  amount: number | undefined,
  now: number,
): PositionOpResult {
  c.advance(now);
  if (amount !== undefined) {
    const bad = amountError(amount);
    if (bad !== null) return bad;
  }
  const m = c.markets.get(conditionId);
  if (m === undefined) return opReject('MARKET_NOT_FOUND', `unknown market ${conditionId}`);
  if (m.status !== 'resolved' || m.winningToken === undefined)
    return opReject('MARKET_NOT_RESOLVED', `market ${conditionId} is not resolved: nothing can be redeemed yet`);
  const yesWins = m.winningToken === m.def.yesToken;
  const a = c.accounts.get(account);
  const w = a?.balByTok[(m.idx << 1) | (yesWins ? 0 : 1)];
  const l = a?.balByTok[(m.idx << 1) | (yesWins ? 1 : 0)];
  const hw = w === undefined ? 0 : w.available;
  const hl = l === undefined ? 0 : l.available;
  const loser = yesWins ? m.def.noToken : m.def.yesToken;
  let win: number;
  let lose: number;
  if (amount !== undefined) {
    if (hw < amount)
      return opReject(
        'NOT_ENOUGH_BALANCE',
        `not enough winning tokens: redeem of ${formatAmount(amount)} asked, ${formatAmount(hw)} available`,
      );
    win = amount;
    lose = 0;
  } else {
    if (hw + hl === 0) return opReject('NOTHING_TO_REDEEM', `no tokens of market ${conditionId} to redeem`);
    win = hw;
    lose = hl;
  }
  c.beginOp();
  if (w !== undefined) w.available -= win;
  if (l !== undefined) l.available -= lose;
  a!.collateral += win;
  c.touchAcct(a!);
  c.endOp(now);
  const tokens: TokenDelta[] = [];
  if (win > 0) tokens.push({ tokenId: m.winningToken, delta: -win });
  if (lose > 0) tokens.push({ tokenId: loser, delta: -lose });
  return opOk(win, tokens);
}

/** `MatchingEngine.convert` (engine.ts). */
export function convert(
  c: EngineCore,
  account: string,
  noMarkets: readonly string[],
  eventMarkets: readonly string[],
  amount: number,
  now: number,
): PositionOpResult {
  c.advance(now);
  const bad = amountError(amount);
  if (bad !== null) return bad;
  if (noMarkets.length === 0) return opReject('INVALID_AMOUNT', 'convert needs at least one market');
  if (new Set(noMarkets).size !== noMarkets.length) return opReject('INVALID_AMOUNT', 'a market is named twice');
  const all: Market[] = [];
  for (const cid of eventMarkets) {
    const m = c.markets.get(cid);
    if (m === undefined) return opReject('MARKET_NOT_FOUND', `unknown market ${cid}`);
    all.push(m);
  }
  for (const cid of noMarkets) {
    const m = c.markets.get(cid);
    if (m === undefined) return opReject('MARKET_NOT_FOUND', `unknown market ${cid}`);
    if (!m.def.negRisk) return opReject('NOT_NEG_RISK', `market ${cid} is not a neg-risk market`);
    if (!eventMarkets.includes(cid))
      return opReject('NOT_NEG_RISK', `market ${cid} is not one of the event's neg-risk markets`);
  }
  for (const m of all) {
    if (!m.def.negRisk) return opReject('NOT_NEG_RISK', `market ${m.def.conditionId} is not a neg-risk market`);
    if (m.status === 'resolved')
      return opReject('MARKET_RESOLVED', `market ${m.def.conditionId} of the event is resolved: no conversion`);
  }
  const n = all.length;
  const k = noMarkets.length;
  if (n < 2) return opReject('NOT_NEG_RISK', 'a conversion needs an event of at least two neg-risk markets');
  if (!Number.isSafeInteger(amount * n)) return opReject('INVALID_AMOUNT', 'amount too large');
  const a = c.accounts.get(account);
  for (const cid of noMarkets) {
    const m = c.markets.get(cid)!;
    const b = a?.balByTok[(m.idx << 1) | 1];
    const have = b === undefined ? 0 : b.available;
    if (have < amount)
      return opReject(
        'NOT_ENOUGH_BALANCE',
        `not enough NO tokens of market ${cid}: convert needs ${formatAmount(amount)}, ${formatAmount(have)} available`,
      );
  }
  c.beginOp();
  const u = a!;
  const adapter = c.acct(NEG_RISK_ADAPTER_ACCOUNT);
  const tokens: TokenDelta[] = [];
  for (const m of all) {
    const noIdx = (m.idx << 1) | 1;
    // the adapter ends with `amount` NO of every market: the user's, or the NO half of a minted set
    adapter.tok(m.def.noToken, noIdx).available += amount;
    if (noMarkets.includes(m.def.conditionId)) {
      u.balByTok[noIdx]!.available -= amount;
      tokens.push({ tokenId: m.def.noToken, delta: -amount });
    } else {
      u.tok(m.def.yesToken, m.idx << 1).available += amount;
      tokens.push({ tokenId: m.def.yesToken, delta: amount });
    }
  }
  const out = (k - 1) * amount;
  u.collateral += out;
  c.mintedTotal += (n - 1) * amount;
  c.touchAcct(u);
  c.touchAcct(adapter);
  c.endOp(now);
  return opOk(out, tokens);
}
