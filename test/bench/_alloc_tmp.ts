import { MatchingEngine } from '../../src/exchange/matching/engine.ts';
const rec = process.env.REC !== '0';
const e = new MatchingEngine({ recordEvents: rec });
e.addMarket({ conditionId: 'c', yesToken: 'Y', noToken: 'N', tickPips: 100, minSizeMicro: 0, negRisk: false, feeRateBps: 0 });
e.credit('a', 1e14); e.setTokens('a', 'Y', 1e14); e.setTokens('a','N',1e14);
const N = 1_000_000;
const ids: string[] = []; for (let i = 0; i < N; i++) ids.push('o' + i);
const mode = process.env.MODE ?? 'restcancel';
const t0 = process.hrtime.bigint();
for (let i = 0; i < N; i++) {
  if (mode === 'restcancel') {
    if (i % 2 === 0) e.place({ id: ids[i]!, account: 'a', owner: 'k', tokenId: 'Y', side: 'BUY', price: 100 + (i % 40) * 100, size: 1_000_000, type: 'GTC', postOnly: false, expiresAt: 0, feeRateBps: 0 }, 1);
    else e.cancel('a', ids[i - 1]!, 1);
  } else if (mode === 'cross') {
    // alternately rest a sell and take it with a buy
    if (i % 2 === 0) e.place({ id: ids[i]!, account: 'a', owner: 'k', tokenId: 'Y', side: 'SELL', price: 5000, size: 1_000_000, type: 'GTC', postOnly: false, expiresAt: 0, feeRateBps: 0 }, 1);
    else e.place({ id: ids[i]!, account: 'a', owner: 'k', tokenId: 'Y', side: 'BUY', price: 5000, size: 1_000_000, type: 'FAK', postOnly: false, expiresAt: 0, feeRateBps: 0 }, 1);
  } else if (mode === 'dup') {
    e.place({ id: 'x', account: 'a', owner: 'k', tokenId: 'Y', side: 'BUY', price: 100, size: 1_000_000, type: 'GTC', postOnly: false, expiresAt: 0, feeRateBps: 0 }, 1);
  }
  e.drainEvents();
}
const dt = Number(process.hrtime.bigint() - t0);
console.log(mode, 'rec', rec, (dt / N).toFixed(0), 'ns/op');
