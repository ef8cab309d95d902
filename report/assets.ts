/**
 * The report's style sheet and its one script, written into `assets/` of the report folder (no CDN, no font
 * download: pages open from `file://`). The script only switches the persona of the index page's leaderboard
 * (every persona's table is in the page; without the script the report's own persona shows).
 */

export const REPORT_CSS = `
:root{--fg:#1d2330;--muted:#4a5263;--line:#d5dae3;--bg:#fafbfc;--card:#fff;--bad:#a1261c;--good:#18632a;--link:#1a4fa0}
*{box-sizing:border-box}
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:var(--fg);background:var(--bg)}
a{color:var(--link)}a:focus-visible,select:focus-visible,summary:focus-visible{outline:3px solid #f0a000;outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:6px 10px}.skip:focus{left:8px}
header.top{background:#1d2330;color:#fff;padding:6px 20px}header.top a{color:#fff;margin-right:18px;display:inline-block;padding:6px 0;min-height:24px}
main li{margin:6px 0}td a{display:inline-block;min-height:24px;padding:2px 0}
header.top .brand{font-weight:700}
main{padding:16px 20px 40px;max-width:1400px}
h1{font-size:24px;margin:8px 0}h2{font-size:19px;margin:26px 0 8px}h3{font-size:16px;margin:18px 0 6px}
.sub,.more{color:var(--muted)}
nav.crumbs ol{list-style:none;padding:0;margin:0 0 8px;display:flex;flex-wrap:wrap;gap:6px}
nav.crumbs li+li::before{content:"›";margin-right:6px;color:var(--muted)}
table{border-collapse:collapse;background:var(--card);margin:6px 0}
th,td{border:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
th{background:#eef1f5;font-weight:600}td.n,th.n{text-align:right;white-space:nowrap}
.neg{color:var(--bad)}.pos{color:var(--good)}
.wrap{overflow-x:auto}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(290px,1fr));gap:14px}
.card{background:var(--card);border:1px solid var(--line);border-radius:6px;padding:10px}
.card h2,.card h3{font-size:16px;margin:0 0 6px}
.card img,.shots img,.pics img{max-width:100%;height:auto;border:1px solid var(--line);display:block}
.noshot{display:block;background:#eceef2;color:var(--muted);padding:40px 10px;text-align:center;border:1px dashed var(--line)}
.shots{display:flex;flex-wrap:wrap;gap:14px;align-items:flex-start}.shots figure{margin:0;max-width:100%}
.shots figure.desk{flex:1 1 640px}.shots figure.phone{flex:0 1 300px}
.pics{display:grid;grid-template-columns:repeat(auto-fill,minmax(360px,1fr));gap:14px}.pics figure{margin:0}
figcaption{color:var(--muted);font-size:13px;margin-top:4px}
ul.kv{margin:4px 0;padding-left:18px}ul.kv .k{color:var(--muted)}
table.details{font-size:13px}
details.metric{background:var(--card);border:1px solid var(--line);border-radius:4px;margin:6px 0;padding:4px 10px}
details.metric summary{cursor:pointer;font-weight:600}
.pill{display:inline-block;border-radius:10px;padding:0 8px;font-size:13px;background:#eef1f5}
.pill.regressed{background:#fbe3e0;color:var(--bad)}.pill.improved{background:#dff2e3;color:var(--good)}
.side{display:grid;grid-template-columns:1fr 1fr;gap:14px}.side figure{margin:0;min-width:0}.side img{max-width:100%;height:auto;border:1px solid var(--line);display:block}
@media (max-width:700px){.side{grid-template-columns:1fr}}
`;

export const REPORT_JS = `
(function(){
  var sel=document.getElementById('persona');
  if(!sel)return;
  function show(id){
    var boards=document.querySelectorAll('section.board');
    for(var i=0;i<boards.length;i++){boards[i].hidden=boards[i].getAttribute('data-persona')!==id;}
  }
  sel.addEventListener('change',function(){show(sel.value);});
  show(sel.value);
})();
`;
