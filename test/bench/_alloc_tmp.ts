import { Session } from 'node:inspector/promises';
const s = new Session(); s.connect();
await s.post('HeapProfiler.enable');
const mod = process.argv[2]!;
await s.post('HeapProfiler.startSampling', { samplingInterval: 512, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true } as never);
process.env.BENCH_MS = '800';
await import(mod);
const { profile } = (await s.post('HeapProfiler.stopSampling')) as { profile: { head: Node } };
interface Node { callFrame: { functionName: string; url: string; lineNumber: number }; selfSize: number; children: Node[] }
const agg = new Map<string, number>(); let tot = 0;
const walk = (n: Node) => { const k = `${n.callFrame.functionName} ${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber}`; agg.set(k, (agg.get(k) ?? 0) + n.selfSize); tot += n.selfSize; n.children.forEach(walk); };
walk(profile.head);
for (const [k, v] of [...agg].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log((v / 1e6).toFixed(1) + 'MB', (100 * v / tot).toFixed(1) + '%', k);
