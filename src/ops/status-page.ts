/**
 * The status page served at `/`: ONE self-contained HTML document (inline CSS, JS and SVG; no
 * external asset, no font, no CDN: the server's Content-Security-Policy forbids them anyway). It
 * loads /api/status, then follows /api/events (server-sent events, one snapshot a second, its bulky
 * parts sent once and then as changes: ./sse-client.ts), and renders: health (with the reasons),
 * the strategy and uptime, PnL with an SVG chart over the run, inventory (collateral, positions),
 * each market traded with its book top and own quotes, what the risk gate refused (by code) and the
 * strategy's errors when there are any, and the recent fills. A button trips the kill switch (POST /api/kill, after a confirmation),
 * with the control token the server adds to the page's <head> (./status-server.ts).
 * `/?live=0` polls /api/status every 2 s instead of holding the event stream open (for proxies that
 * buffer server-sent events, and for headless browsers whose virtual time waits for open requests).
 *
 * Numbers arrive as decimal strings and are shown as they are; the chart parses them for drawing
 * only. Every text from the daemon is HTML-escaped before it is inserted.
 */

export const STATUS_PAGE_HTML = String.raw`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>mmkit status</title>
<style>
  :root { --bg:#0f1419; --card:#171d24; --line:#27313c; --fg:#d8dee6; --dim:#8593a3; --ok:#3fb950; --bad:#f85149; --warn:#d29922; --bid:#3fb950; --ask:#f0883e; --accent:#58a6ff; }
  * { box-sizing: border-box; }
  body { margin:0; font:14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background:var(--bg); color:var(--fg); }
  header { display:flex; flex-wrap:wrap; gap:12px 24px; align-items:center; padding:12px 20px; border-bottom:1px solid var(--line); background:var(--card); }
  header h1 { font-size:18px; margin:0; letter-spacing:.5px; }
  .badge { display:inline-block; padding:2px 10px; border-radius:12px; font-weight:600; font-size:12px; text-transform:uppercase; }
  .badge.ok { background:rgba(63,185,80,.15); color:var(--ok); border:1px solid var(--ok); }
  .badge.bad { background:rgba(248,81,73,.15); color:var(--bad); border:1px solid var(--bad); }
  .badge.warn { background:rgba(210,153,34,.15); color:var(--warn); border:1px solid var(--warn); }
  .meta { color:var(--dim); font-size:12px; }
  .meta b { color:var(--fg); font-weight:500; }
  main { display:grid; grid-template-columns: repeat(auto-fit, minmax(380px, 1fr)); gap:16px; padding:16px 20px; }
  section { background:var(--card); border:1px solid var(--line); border-radius:8px; padding:12px 14px; min-width:0; overflow-x:auto; }
  section.wide { grid-column: 1 / -1; }
  h2 { font-size:13px; text-transform:uppercase; letter-spacing:.8px; color:var(--dim); margin:0 0 10px; }
  table { width:100%; border-collapse:collapse; font-variant-numeric: tabular-nums; }
  th, td { text-align:left; padding:4px 6px; border-bottom:1px solid var(--line); white-space:nowrap; }
  td.q { max-width:150px; overflow:hidden; text-overflow:ellipsis; }
  #fills td.q { max-width:360px; }
  #positions th, #positions td { padding:4px 4px; }
  th { color:var(--dim); font-weight:500; font-size:12px; }
  td.num, th.num { text-align:right; }
  .bid { color:var(--bid); } .ask { color:var(--ask); } .neg { color:var(--bad); } .pos { color:var(--ok); } .dim { color:var(--dim); }
  .big { font-size:26px; font-weight:600; font-variant-numeric: tabular-nums; }
  .kv { display:grid; grid-template-columns:auto 1fr; gap:2px 14px; }
  .kv span:nth-child(odd) { color:var(--dim); }
  .market { border-top:1px solid var(--line); padding:10px 0 6px; }
  .market:first-of-type { border-top:none; padding-top:0; }
  .market h3 { font-size:14px; margin:0 0 4px; font-weight:600; white-space:normal; }
  .quotes { display:flex; flex-wrap:wrap; gap:6px; margin-top:6px; }
  .chip { border:1px solid var(--line); border-radius:4px; padding:1px 6px; font-size:12px; font-variant-numeric: tabular-nums; }
  .reasons { margin:6px 0 0; padding-left:18px; }
  .reasons li { color:var(--bad); }
  svg text { fill:var(--dim); font-size:10px; }
  button { background:transparent; color:var(--bad); border:1px solid var(--bad); border-radius:6px; padding:4px 12px; cursor:pointer; font-weight:600; }
  button:disabled { opacity:.5; cursor:default; }
  .right { margin-left:auto; display:flex; gap:12px; align-items:center; }
  .empty { color:var(--dim); font-style:italic; }
</style>
</head>
<body>
<header>
  <h1>mmkit</h1>
  <span id="shadow-badge" class="badge warn" title="Shadow mode: live books, simulated fills; no order is sent to the venue" hidden>SHADOW</span>
  <span id="venue-badge" class="badge" hidden></span>
  <span id="health-badge" class="badge warn">loading</span>
  <span class="meta">strategy <b id="strategy">–</b></span>
  <span class="meta">state <b id="lifecycle">–</b></span>
  <span class="meta">uptime <b id="uptime">–</b></span>
  <span class="meta">account <b id="address">–</b></span>
  <span class="right"><span class="meta">feed <b id="conn">connecting</b></span><button id="kill" type="button" title="Cancel every order, verify zero open orders, stop the daemon">Kill switch</button></span>
</header>
<main>
  <section id="health-card">
    <h2>Health</h2>
    <div class="big" id="health-status">–</div>
    <ul class="reasons" id="health-reasons"></ul>
    <div class="kv" id="health-checks"></div>
  </section>
  <section id="pnl-card">
    <h2>PnL (USDC)</h2>
    <div class="big" id="pnl-total">–</div>
    <div class="kv" id="pnl-parts"></div>
    <svg id="pnl-chart" viewBox="0 0 600 170" width="100%" height="170" role="img" aria-label="PnL over the run"></svg>
  </section>
  <section id="inventory-card">
    <h2>Inventory</h2>
    <div class="kv" id="collateral"></div>
    <table id="positions"><thead><tr><th>market</th><th>outcome</th><th class="num">shares</th><th class="num">avg</th><th class="num">mark</th></tr></thead><tbody></tbody></table>
    <div class="kv" id="orders" style="margin-top:8px"></div>
  </section>
  <section class="wide" id="fleet-card" hidden>
    <h2>Fleet</h2>
    <div class="kv" id="fleet-kv"></div>
    <table id="fleet-members"><thead><tr><th>member</th><th class="num">markets</th><th class="num">open orders</th><th class="num">pnl</th><th>heartbeat</th></tr></thead><tbody></tbody></table>
  </section>
  <section class="wide" id="markets-card">
    <h2>Markets</h2>
    <div id="markets"><p class="empty">no data yet</p></div>
  </section>
  <section class="wide" id="fills-card">
    <h2>Recent fills</h2>
    <table id="fills"><thead><tr><th>time</th><th>market</th><th>outcome</th><th>side</th><th>role</th><th class="num">price</th><th class="num">size</th><th>status</th></tr></thead><tbody></tbody></table>
  </section>
</main>
<script>
(function () {
  'use strict';
  var $ = function (id) { return document.getElementById(id); };
  var esc = function (v) {
    return String(v == null ? '' : v).replace(/[&<>"']/g, function (c) { return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]; });
  };
  var signed = function (s) { return (s && s.charAt(0) === '-') ? 'neg' : (s && s !== '0' ? 'pos' : ''); };
  var short = function (s, n) { s = String(s || ''); return s.length > n ? s.slice(0, n) + '…' : s; };
  var dur = function (sec) {
    var h = Math.floor(sec / 3600), m = Math.floor((sec % 3600) / 60), s = sec % 60;
    return (h ? h + 'h ' : '') + (h || m ? m + 'm ' : '') + s + 's';
  };
  var kv = function (pairs) {
    return pairs.map(function (p) { return '<span>' + esc(p[0]) + '</span><span' + (p[2] ? ' class="' + p[2] + '"' : '') + '>' + esc(p[1]) + '</span>'; }).join('');
  };

  var rewardLine = function (r) {
    if (!r) return '';
    return '<div class="meta rewards">rewards: pool ' + esc(r.dailyRate) + ' USDC/day, band ' + esc(r.maxSpread) + '¢, min ' + esc(r.minSize) + ' shares · share ' + esc((r.share * 100).toFixed(1)) + '% (≈' + esc(r.estDaily) + ' USDC/day)' + (typeof r.venueShare === 'number' ? ' · the venue: ' + esc((r.venueShare * 100).toFixed(1)) + '% of the running epoch' : '') + ' · scored ' + r.scoredSamples + '/' + r.samples + ' samples · paid ' + esc(r.paid) + ', estimated ' + esc(r.estimated) + '</div>';
  };

  var renders = 0;

  function chart(series) {
    var W = 600, H = 170, L = 48, R = 8, T = 8, B = 18;
    var svg = $('pnl-chart');
    if (!series || series.length === 0) { svg.innerHTML = '<text x="' + L + '" y="' + (H / 2) + '">no data yet</text>'; return; }
    var pts = series.map(function (p) { return { t: p.t, total: parseFloat(p.total), realized: parseFloat(p.realized) }; });
    var t0 = pts[0].t, t1 = pts[pts.length - 1].t; if (t1 === t0) t1 = t0 + 1000;
    var lo = 0, hi = 0;
    pts.forEach(function (p) { lo = Math.min(lo, p.total, p.realized); hi = Math.max(hi, p.total, p.realized); });
    if (hi - lo < 0.01) { hi += 0.005; lo -= 0.005; }
    var x = function (t) { return L + (W - L - R) * (t - t0) / (t1 - t0); };
    var y = function (v) { return T + (H - T - B) * (hi - v) / (hi - lo); };
    var line = function (k) { return pts.map(function (p) { return x(p.t).toFixed(1) + ',' + y(p[k]).toFixed(1); }).join(' '); };
    var fmt = function (v) { return Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(2); };
    var last = pts[pts.length - 1];
    svg.innerHTML =
      '<line x1="' + L + '" x2="' + (W - R) + '" y1="' + y(0).toFixed(1) + '" y2="' + y(0).toFixed(1) + '" stroke="#39434f" stroke-dasharray="3 3"/>' +
      '<text x="2" y="' + (T + 8) + '">' + fmt(hi) + '</text>' +
      '<text x="2" y="' + (H - B) + '">' + fmt(lo) + '</text>' +
      (Math.abs(y(0) - (T + 8)) > 14 && Math.abs(y(0) - (H - B)) > 14 ? '<text x="2" y="' + (y(0) + 3).toFixed(1) + '">0</text>' : '') +
      '<text x="' + L + '" y="' + (H - 4) + '">' + esc(new Date(t0).toLocaleTimeString()) + '</text>' +
      '<text x="' + (W - R - 60) + '" y="' + (H - 4) + '">' + esc(new Date(last.t).toLocaleTimeString()) + '</text>' +
      '<polyline fill="none" stroke="#8593a3" stroke-width="1" stroke-dasharray="4 3" points="' + line('realized') + '"><title>realized</title></polyline>' +
      '<polyline id="pnl-line" fill="none" stroke="' + (last.total < 0 ? '#f85149' : '#58a6ff') + '" stroke-width="2" points="' + line('total') + '"><title>total</title></polyline>' +
      '<circle cx="' + x(last.t).toFixed(1) + '" cy="' + y(last.total).toFixed(1) + '" r="3" fill="' + (last.total < 0 ? '#f85149' : '#58a6ff') + '"/>';
  }

  function render(s) {
    if (!s || s.schema !== 1) return;
    var h = s.health;
    var badge = $('health-badge');
    badge.textContent = h.healthy ? 'healthy' : 'unhealthy';
    badge.className = 'badge ' + (h.healthy ? 'ok' : 'bad');
    $('health-status').textContent = h.healthy ? 'OK' : 'UNHEALTHY';
    $('health-status').className = 'big ' + (h.healthy ? 'pos' : 'neg');
    $('health-reasons').innerHTML = h.reasons.map(function (r) { return '<li data-code="' + esc(r.code) + '">' + esc(r.code) + ': ' + esc(r.message) + '</li>'; }).join('');
    var c = h.checks;
    $('health-checks').innerHTML = kv([
      ['market stream', c.marketStream, c.marketStream === 'up' ? 'pos' : 'neg'],
      ['user stream', c.userStream, c.userStream === 'down' ? 'neg' : 'pos'],
      ['market data age', c.marketDataAgeSec == null ? '–' : c.marketDataAgeSec + ' s'],
      ['stale books', String(c.staleBooks), c.staleBooks ? 'neg' : ''],
      ['heartbeat failures', String(c.heartbeatFailures), c.heartbeatFailures ? 'neg' : ''],
      ['kill switch', s.killSwitch.tripped ? 'TRIPPED (' + (s.killSwitch.trigger || '') + ')' : 'armed', s.killSwitch.tripped ? 'neg' : ''],
      ['execution', s.execution.paused ? 'paused: ' + s.execution.pauseReasons.join(', ') : 'running', s.execution.paused ? 'neg' : '']
    ]);
    $('strategy').textContent = s.strategy.name;
    $('shadow-badge').hidden = s.mode !== 'shadow';
    // LIVE (real money) or PAPER beside it (an older daemon says neither: no badge)
    var vb = $('venue-badge'), paper = s.venue && s.venue.paper;
    vb.hidden = s.mode === 'shadow' || (paper !== true && paper !== false);
    vb.textContent = paper ? 'paper' : 'live';
    vb.className = 'badge ' + (paper ? 'ok' : 'bad');
    vb.title = paper ? 'A paper exchange: no real money' : 'A real venue: real money';
    $('lifecycle').textContent = s.lifecycle;
    $('uptime').textContent = dur(s.uptimeSec);
    $('address').textContent = short(s.account.address, 12);

    $('pnl-total').textContent = s.pnl.total;
    $('pnl-total').className = 'big ' + signed(s.pnl.total);
    var R = s.pnl.rewards;
    $('pnl-parts').innerHTML = kv([['trading', s.pnl.trading, signed(s.pnl.trading)], ['· realized', s.pnl.realized, signed(s.pnl.realized)], ['· unrealized', s.pnl.unrealized, signed(s.pnl.unrealized)], ['fees', s.pnl.fees], ['rewards', R.total, signed(R.total)], ['· paid', R.paid], ['· estimated (not paid yet)', R.estimated]].concat(s.pnl.day ? [['today (UTC ' + s.pnl.day.date + ': the daily loss limit)', s.pnl.day.pnl, signed(s.pnl.day.pnl)]] : []));
    chart(s.pnl.series);

    $('collateral').innerHTML = kv([['collateral available', s.inventory.collateral.available], ['reserved by orders', s.inventory.collateral.reserved]]);
    var pos = s.inventory.positions;
    $('positions').tBodies[0].innerHTML = pos.length === 0 ? '<tr><td colspan="5" class="empty">flat</td></tr>' : pos.map(function (p) {
      return '<tr><td class="q" title="' + esc(p.question) + '">' + esc(short(p.question, 22)) + '</td><td>' + esc(p.outcome) + '</td><td class="num ' + signed(p.size) + '">' + esc(p.size) + '</td><td class="num">' + esc(p.avgPrice) + '</td><td class="num">' + esc(p.mark == null ? '–' : p.mark) + '</td></tr>';
    }).join('');
    var L = s.ledger;
    var rows = [['open orders', String(s.orders.open)], ['placed (this session)', String(s.orders.placed)], ['cancelled', String(s.orders.cancelled)], ['rejected', String(s.orders.rejected)], ['fills (this session)', String(s.fills.count) + (L && L.session.externalFills ? ' + ' + L.session.externalFills + ' external' : '')], ['volume', s.fills.volume + ' shares'], ['notional', s.fills.notional + ' USDC']];
    // what the risk gate refused by code and the strategy's errors (absent from an older daemon)
    var G = s.gate, E = s.strategyErrors;
    var counts = function (o) { var k = Object.keys(o || {}); return k.length === 0 ? 'none' : k.map(function (c) { return c + ' x' + o[c]; }).join(', '); };
    if (G && Object.keys(G.refused).length > 0) rows.push(['refused by the risk gate (last ' + Math.round(G.windowSec / 60) + ' min)', counts(G.refusedRecent) + ' (since start ' + counts(G.refused) + ')', 'neg']);
    if (E && E.count > 0) rows.push(['strategy errors', E.count + ' (last 5 min ' + E.recent + ')' + (E.first ? '; first: ' + E.first.message + (E.first.at ? ' at ' + E.first.at : '') : ''), 'neg']);
    if (L && L.epoch) rows.push(['ledger epoch ' + L.epoch.id, L.epoch.fills + ' fills' + (L.epoch.externalFills ? ' + ' + L.epoch.externalFills + ' external' : '') + ', ' + L.epoch.adjustments + ' adjustments, ' + L.epoch.operations + ' split/merge/redeem since ' + L.epoch.since + (L.epoch.world ? ' (world ' + L.epoch.world.slice(0, 8) + ')' : '')]);
    $('orders').innerHTML = kv(rows);
    var F = s.fleet;
    $('fleet-card').hidden = !F;
    if (F) {
      $('fleet-kv').innerHTML = kv([['this member', F.member], ['members alive', String(F.members.length)], ['total pnl', F.totalPnl, signed(F.totalPnl)], ['heartbeat', F.heartbeat || 'no holder', F.heartbeat ? '' : 'neg'], ['fleet kill switch', F.kill == null ? 'armed' : 'TRIPPED (' + F.kill + ')', F.kill == null ? '' : 'neg']]);
      $('fleet-members').tBodies[0].innerHTML = F.members.map(function (m) {
        return '<tr><td>' + esc(m.member) + (m.member === F.member ? ' (this)' : '') + '</td><td class="num">' + m.markets + '</td><td class="num">' + m.openOrders + '</td><td class="num ' + signed(m.pnl) + '">' + esc(m.pnl) + '</td><td>' + (m.heartbeat ? 'holder' : '') + '</td></tr>';
      }).join('');
    }

    $('markets').innerHTML = s.markets.length === 0 ? '<p class="empty">no markets</p>' : s.markets.map(function (m) {
      var rows = m.tokens.map(function (t) {
        return '<tr data-token="' + esc(t.tokenId) + '"><td>' + esc(t.outcome) + (t.stale ? ' <span class="badge bad">stale</span>' : '') + '</td><td class="num bid">' + esc(t.bestBid == null ? '–' : t.bestBid) + '</td><td class="num ask">' + esc(t.bestAsk == null ? '–' : t.bestAsk) + '</td><td class="num">' + esc(t.mid == null ? '–' : t.mid) + '</td><td class="num ' + signed(t.position) + '">' + esc(t.position) + '</td></tr>';
      }).join('');
      var quotes = m.quotes.length === 0 ? '<span class="empty">no own quotes</span>' : m.quotes.map(function (q) {
        return '<span class="chip ' + (q.side === 'BUY' ? 'bid' : 'ask') + '">' + esc(q.outcome) + ' ' + esc(q.side === 'BUY' ? 'bid' : 'ask') + ' ' + esc(q.price) + ' × ' + esc(q.size) + (q.matched !== '0' ? ' (' + esc(q.matched) + ' filled)' : '') + '</span>';
      }).join('');
      return '<div class="market" data-market="' + esc(m.market) + '"><h3>' + esc(m.question) + ' ' + (m.quotable ? '<span class="badge ok">quoting</span>' : m.heldBy ? '<span class="badge">held by ' + esc(m.heldBy) + '</span>' : '<span class="badge warn" title="' + esc(m.why) + '">pulled</span>') + '</h3>' +
        '<div class="meta">' + esc(short(m.market, 18)) + (m.why ? ' · ' + esc(m.why) : '') + '</div>' +
        '<table><thead><tr><th>outcome</th><th class="num">best bid</th><th class="num">best ask</th><th class="num">mid</th><th class="num">position</th></tr></thead><tbody>' + rows + '</tbody></table>' +
        '<div class="quotes">' + quotes + '</div>' + rewardLine(m.rewards) + '</div>';
    }).join('');

    var f = s.fills.recent;
    $('fills').tBodies[0].innerHTML = f.length === 0 ? '<tr><td colspan="8" class="empty">no fills yet</td></tr>' : f.map(function (x) {
      return '<tr><td>' + esc(new Date(x.time).toLocaleTimeString()) + '</td><td class="q" title="' + esc(x.question) + '">' + esc(short(x.question, 40)) + '</td><td>' + esc(x.outcome) + '</td><td class="' + (x.side === 'BUY' ? 'bid' : 'ask') + '">' + esc(x.side) + '</td><td>' + esc(x.role) + '</td><td class="num">' + esc(x.price) + '</td><td class="num">' + esc(x.size) + '</td><td>' + esc(x.status) + '</td></tr>';
    }).join('');
    $('kill').disabled = s.killSwitch.tripped || s.lifecycle === 'stopping' || s.lifecycle === 'stopped';
    document.title = (h.healthy ? '' : '⚠ ') + (s.mode === 'shadow' ? 'SHADOW · ' : '') + 'mmkit · ' + s.pnl.total + ' USDC';
    renders++;
    document.body.setAttribute('data-rendered', String(s.now));
    document.body.setAttribute('data-renders', String(renders));
  }

  function setConn(t) { $('conn').textContent = t; }

  $('kill').addEventListener('click', function () {
    if (!window.confirm('Trip the kill switch? Every order is cancelled and the daemon stops.')) return;
    $('kill').disabled = true;
    // the control token the server put in this page's <head> (only ever served to an allowed Host)
    var meta = document.querySelector('meta[name="mmkit-control-token"]');
    var headers = { 'content-type': 'application/json' };
    if (meta && meta.getAttribute('content')) headers['x-control-token'] = meta.getAttribute('content');
    fetch('/api/kill', { method: 'POST', headers: headers, body: JSON.stringify({ reason: 'kill switch on the status page' }) })
      .then(function (r) { return r.json(); })
      .then(function (r) { setConn(r.flat ? 'stopped: zero open orders' : 'kill: ' + (r.error || 'not flat')); })
      .catch(function () { setConn('kill request failed'); });
  });

  var polling = null;
  function poll() {
    fetch('/api/status', { cache: 'no-store' }).then(function (r) { return r.json(); }).then(function (s) { render(s); setConn('polling'); }).catch(function () { setConn('offline'); });
  }
  function live() {
    if (!('EventSource' in window)) { polling = setInterval(poll, 2000); return; }
    var es = new EventSource('/api/events');
    // the PnL series, own quotes and recent fills come whole in a stream's first frame, then only as
    // changes (src/ops/sse-client.ts): series {keep, points}, a market's quotes when they changed,
    // fills {keep, add}; the page rebuilds the snapshot from what it holds before rendering it
    var series = [], quotes = {}, fills = [];
    es.addEventListener('status', function (ev) {
      try {
        var s = JSON.parse(ev.data);
        if (s.pnl && s.pnl.seriesUpdate) { series = series.slice(0, s.pnl.seriesUpdate.keep).concat(s.pnl.seriesUpdate.points); s.pnl.series = series; }
        else if (s.pnl && s.pnl.series) series = s.pnl.series;
        if (s.markets) {
          var held = {};
          s.markets.forEach(function (m) { if (!m.quotes) m.quotes = quotes[m.market] || []; held[m.market] = m.quotes; });
          quotes = held;
        }
        if (s.fills && s.fills.recentUpdate) { fills = s.fills.recentUpdate.add.concat(fills.slice(0, s.fills.recentUpdate.keep)); s.fills.recent = fills; }
        else if (s.fills && s.fills.recent) fills = s.fills.recent;
        render(s);
        setConn('live');
      } catch (e) { /* a bad frame */ }
    });
    es.addEventListener('end', function () { setConn('daemon stopped'); es.close(); });
    es.onerror = function () { setConn('reconnecting…'); };
  }
  fetch('/api/status', { cache: 'no-store' })
    .then(function (r) { return r.json(); })
    .then(function (s) { render(s); })
    .catch(function () { setConn('offline'); })
    .then(function () {
      // ?live=0: poll every 2 s instead of the event stream (proxies that buffer SSE; headless dumps)
      if (/[?&]live=0\b/.test(location.search)) polling = setInterval(poll, 2000);
      else live();
    });
})();
</script>
</body>
</html>
`;
