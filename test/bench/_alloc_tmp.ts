import { MatchingEngine } from '../../src/exchange/matching/engine.ts';
const rec = process.env.REC !== '0';
const e = new MatchingEngine({ recordEvents: rec });
e.addMarket({ conditionId: 'c', yesToken: 'Y', noToken: 'N', tickPips: 100, minSizeMicro: 0, negRisk: false, feeRateBps: 0 });
e.credit('a', 1e14); e.setTokens('a', 'Y', 1e14); e.setTokens('a','N',1e14);
const N = Number(process.env.N ?? 1_000_000);
const ids: string[] = []; for (let i = 0; i < N; i++) ids.push(Buffer.from('0x' + i.toString(16).padStart(64, '0'), 'latin1').toString('latin1'));
const mode = process.env.MODE ?? 'rest';
let t0 = process.hrtime.bigint();
for (let i = 0; i < N; i++) {
  e.place({ id: ids[i]!, account: 'a', owner: 'k', tokenId: 'Y', side: 'BUY', price: 100 + (i % 40) * 100, size: 1_000_000 * (1 + (i % 50)), type: 'GTC', postOnly: false, expiresAt: 0, feeRateBps: 0 }, 1);
  e.drainEvents();
}
console.log(mode, 'rest', 'rec', rec, (Number(process.hrtime.bigint() - t0) / N).toFixed(0), 'ns/op');
if (process.env.NOCANCEL) process.exit(0);
t0 = process.hrtime.bigint();
for (let i = 0; i < N; i++) {
  e.cancel('a', ids[(i * 7919) % N]!, 1);
  e.drainEvents();
}
console.log(mode, 'cancel', 'rec', rec, (Number(process.hrtime.bigint() - t0) / N).toFixed(0), 'ns/op');
