/**
 * The HTML report of `webgrade leaderboard --format html`: one self-contained file (inline data, style and
 * script; no network, no external fonts) with the leaderboard, a persona switcher that re-ranks in the page, a
 * heatmap of raw metric means (models × the 24 catalogue metrics, like the study's Figure 5), per-metric z,
 * unscorable counts, label breakdowns (the study's Table 5: the average over models per label value, then each
 * model) and the bootstrap intervals.
 *
 * Switching persona in the page: every persona's leaderboard (ranks, overall, perspectives), its breakdowns and
 * its bootstrap intervals are computed in Node from the one set of standings (weights/leaderboard.ts
 * `computeStandings`: the norms, aggregates and bootstrap resamples are computed once for all personas) and
 * embedded; the page only shows them, it derives no score.
 *
 * All strings from the results (model names, label values) are inserted with textContent, and the embedded JSON
 * escapes `<`, so a hostile model name cannot inject markup. Records keyed by them have no prototype here and in
 * the page (lookups ask for own keys), so a model, metric or label named `__proto__` or `toString` is one like any other.
 *
 * The noise guard of the document (noise.ts) applies to every persona's bootstrap and to the breakdowns, and the
 * report says what it changed under the leaderboard. A model with artifacts for one requirement shows
 * "n/a: one requirement" instead of an interval.
 */
import { suiteMetrics } from '../metrics/registry.js';
import { scoreBreakdown, scoreModels, type Population } from '../weights/aggregate.js';
import { dict, own } from '../lib/dict.js';
import { escapeHtml } from '../lib/html.js';
import { guardSummary } from '../weights/noise.js';
import { executableText } from './leaderboard-format.js';
import { computeStandings, leaderboardDoc, PERSPECTIVE_SHORT, type LeaderboardDoc, type LeaderboardOptions, type Standings } from '../weights/leaderboard.js';
import { describeWeights, PERSONA_IDS, PERSONA_TITLES, presetWeights, type ResolvedWeights } from '../weights/personas.js';

/** One persona's leaderboard as the page shows it. */
export interface PersonaRow {
  model: string;
  rank: number;
  overall: number;
  /** Weighted z per perspective of the document (0 for a perspective the persona does not weigh). */
  perspectives: Record<string, number>;
}

export interface ReportData {
  title: string;
  generatedAt: string;
  initialPersona: string;
  population: LeaderboardDoc['population'];
  perspectives: string[];
  perspectiveShort: Record<string, string>;
  catalog: Array<{ id: string; perspective: string; title: string }>;
  /** Metrics with results (catalogue order). */
  metrics: LeaderboardDoc['metrics'];
  models: Array<{ model: string; artifacts: number; failed: number; executable?: string }>;
  perMetric: LeaderboardDoc['perMetric'];
  personas: Array<{
    id: string;
    title: string;
    description: string;
    perspectives: Record<string, number>;
    metrics: Record<string, number>;
    /** The leaderboard under this persona, best first. */
    board: PersonaRow[];
    /** breakdowns[label][value]: the mean over models of their overall on the value, how many, and each model's. */
    breakdowns: Record<string, Record<string, { average: number | null; models: number; overall: Record<string, number> }>>;
    bootstrap: Record<string, { ci: [number, number] | null; ciReason?: string; rankHolds: number | null }>;
    notApart: Array<{ upper: string; lower: string; pAhead: number }>;
  }>;
  /** breakdowns[label][value] = {artifacts}: the labels broken down, their values and how many artifacts carry each. */
  breakdowns: Record<string, Record<string, { artifacts: number }>>;
  bootstrapInfo: { iterations: number; seed: number; requirements: number } | null;
  /** The noise guard in one line (noise.ts `guardSummary`), and its changes. */
  noiseGuard: { summary: string; changed: LeaderboardDoc['noiseGuard']['changed'] };
  notes: string[];
}

/**
 * What the HTML leaderboard shows, computed once: the standings of the population with every persona's weights
 * bootstrapped on the same resamples, and the document of the chosen persona.
 */
export interface ReportStandings {
  standings: Standings;
  doc: LeaderboardDoc;
  /** The personas of the switcher: a persona from a weights file first, then the presets. */
  personas: ResolvedWeights[];
  /** The id of the chosen persona among `personas`. */
  initial: string;
}

/** The persona switcher's weight sets: every preset for the chosen suite, a weights file's persona first. */
export function reportPersonas(chosen: ResolvedWeights): { personas: ResolvedWeights[]; initial: string } {
  const suite = { suite: chosen.suite, reference: chosen.perspectives.fidelity !== undefined };
  const personas: ResolvedWeights[] = PERSONA_IDS.map((id) => presetWeights(id, suite));
  if (!personas.some((w) => w.persona === chosen.persona && w.source === chosen.source)) {
    // A persona from a weights file: shown first, under its own name (suffixed if it shadows a preset).
    const id = PERSONA_IDS.includes(chosen.persona as never) ? `${chosen.persona} (file)` : chosen.persona;
    personas.unshift({ ...chosen, persona: id });
  }
  const initial = personas.find((w) => w.source === chosen.source && (w.persona === chosen.persona || w.persona === `${chosen.persona} (file)`))!.persona;
  return { personas, initial };
}

/** Compute the standings of `pop` once for every persona of the switcher, and the chosen persona's document. */
export function reportStandings(pop: Population, chosen: ResolvedWeights, opts: LeaderboardOptions = {}): ReportStandings {
  const { personas, initial } = reportPersonas(chosen);
  const standings = computeStandings(pop, dict(personas.map((w) => [w.persona, w.metrics])), opts);
  return { standings, doc: leaderboardDoc(standings, chosen, initial), personas, initial };
}

export function reportData(rs: ReportStandings, opts: { title?: string } = {}): ReportData {
  const { standings: st, doc } = rs;
  const guard = doc.noiseGuard;
  const breakdowns: ReportData['breakdowns'] = dict();
  for (const la of st.labels) breakdowns[la.label] = dict(la.values.map((v) => [v.value, { artifacts: v.artifacts }]));
  return {
    title: opts.title ?? 'webgrade leaderboard',
    generatedAt: new Date().toISOString(),
    initialPersona: rs.initial,
    population: doc.population,
    perspectives: [...doc.perspectives],
    perspectiveShort: PERSPECTIVE_SHORT,
    catalog: suiteMetrics(doc.suite).map((m) => ({ id: m.id, perspective: m.perspective, title: m.title })),
    metrics: doc.metrics,
    models: doc.models.map((m) =>
      m.executable
        ? { model: m.model, artifacts: m.artifacts, failed: m.failed, executable: executableText(m) }
        : { model: m.model, artifacts: m.artifacts, failed: m.failed },
    ),
    perMetric: doc.perMetric,
    personas: rs.personas.map((w) => {
      const b = own(st.boot, w.persona);
      const perspectivesOf = (per: Partial<Record<string, number>>) => dict(doc.perspectives.map((p) => [p, own(per, p) ?? 0]));
      return {
        id: w.persona,
        title: own(PERSONA_TITLES as Record<string, string>, w.persona) ?? `from ${w.source}`,
        description: describeWeights(w),
        perspectives: w.perspectives,
        metrics: w.metrics,
        board: scoreModels(st.agg, w.metrics).map((m) => ({ model: m.model, rank: m.rank, overall: m.overall, perspectives: perspectivesOf(m.perspectives) })),
        breakdowns: dict(
          st.labels.map((la) => {
            const scored = scoreBreakdown(la, w.metrics);
            return [
              la.label,
              dict(
                scored.values.map((v) => [v.value, { average: v.average, models: v.modelsAveraged, overall: dict(v.models.map((m) => [m.model, m.overall])) }]),
              ),
            ];
          }),
        ),
        bootstrap: dict(
          (b?.models ?? []).map((m) => [
            m.model,
            m.ciReason ? { ci: m.ci, ciReason: m.ciReason, rankHolds: m.rankHolds } : { ci: m.ci, rankHolds: m.rankHolds },
          ]),
        ),
        notApart: b?.notApart ?? [],
      };
    }),
    breakdowns,
    bootstrapInfo: doc.bootstrap ? { iterations: doc.bootstrap.iterations, seed: doc.bootstrap.seed, requirements: doc.bootstrap.requirements } : null,
    noiseGuard: { summary: guardSummary(guard), changed: guard.changed },
    notes: doc.notes.filter((n) => !/not clearly apart/.test(n)),
  };
}

/** JSON safe inside a <script> element. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px;color:#1d2330;background:#fafbfc}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px}
.sub{color:#5a6272;margin:2px 0}
table{border-collapse:collapse;background:#fff;margin:6px 0}
th,td{border:1px solid #dde1e8;padding:3px 7px;text-align:right;white-space:nowrap}
th{background:#f0f2f6;font-weight:600}td.l,th.l{text-align:left}
.neg{color:#b3261e}.pos{color:#1b6e2a}
#persona{font-size:14px;padding:3px 6px}
.note{background:#fff7e0;border:1px solid #f0d68a;padding:6px 10px;margin:6px 0;border-radius:4px}
.heat td{min-width:34px;text-align:center;font-size:12px}
.heat th.m{writing-mode:vertical-rl;transform:rotate(180deg);text-align:left;font-weight:500;font-size:12px;padding:6px 2px}
.ci{display:inline-block;position:relative;width:140px;height:10px;background:#eef0f4;vertical-align:middle}
.ci span{position:absolute;top:0;height:10px;background:#7a9cd6}.ci i{position:absolute;top:-2px;width:2px;height:14px;background:#1d2330}
.wrap{overflow-x:auto}
td.na{color:#5a6272}
`;

const SCRIPT = String.raw`
(function(){
var D = JSON.parse(document.getElementById('webgrade-data').textContent);
// Keys from the results (model names, metric ids, labels) may be __proto__, constructor or toString: every
// lookup by such a key asks for an own property, and maps built here have no prototype.
function own(o,k){return o!==null&&o!==undefined&&Object.prototype.hasOwnProperty.call(o,k)?o[k]:undefined;}
function map(){return Object.create(null);}
function el(tag, text, cls){var e=document.createElement(tag);if(text!==undefined&&text!==null)e.textContent=String(text);if(cls)e.className=cls;return e;}
function pct(x,d){if(x===null||x===undefined||!isFinite(x))return 'n/a';return (x*100).toFixed(d===undefined?2:d);}
function signCls(x){return x>0?'pos':(x<0?'neg':'');}
function persona(id){for(var i=0;i<D.personas.length;i++)if(D.personas[i].id===id)return D.personas[i];return D.personas[0];}
function clear(id){var e=document.getElementById(id);while(e.firstChild)e.removeChild(e.firstChild);return e;}
function head(tr, labels){labels.forEach(function(l,i){tr.appendChild(el('th',l,i<2?'l':''));});}
function renderBoard(P){
  var ranked=P.board;
  var t=clear('board');var thead=el('thead');var tr=el('tr');
  var ex=map();D.models.forEach(function(m){if(m.executable)ex[m.model]=m.executable;});var withEx=Object.keys(ex).length>0;
  head(tr,['rank','model','overall','95% CI','','rank holds'].concat(withEx?['executable']:[]).concat(D.perspectives.map(function(p){return D.perspectiveShort[p];})));
  thead.appendChild(tr);t.appendChild(thead);var tb=el('tbody');
  var lo=0,hi=0;ranked.forEach(function(m){var b=own(P.bootstrap,m.model);var a=b&&b.ci?b.ci[0]:m.overall,c=b&&b.ci?b.ci[1]:m.overall;lo=Math.min(lo,a,m.overall);hi=Math.max(hi,c,m.overall);});
  var span=(hi-lo)||1;
  ranked.forEach(function(m){
    var r=el('tr');r.setAttribute('data-model',m.model);
    r.appendChild(el('td',m.rank,'l'));r.appendChild(el('td',m.model,'l'));
    r.appendChild(el('td',pct(m.overall),signCls(m.overall)));
    var b=own(P.bootstrap,m.model);
    r.appendChild(el('td',b?(b.ci?pct(b.ci[0])+' … '+pct(b.ci[1]):'n/a: '+(b.ciReason||'no interval')):'',b&&!b.ci?'na':''));
    var cell=el('td');if(b&&b.ci){var bar=el('div',null,'ci');var s=el('span');s.style.left=((b.ci[0]-lo)/span*100)+'%';s.style.width=Math.max(1,(b.ci[1]-b.ci[0])/span*100)+'%';bar.appendChild(s);var i=el('i');i.style.left=((m.overall-lo)/span*100)+'%';bar.appendChild(i);cell.appendChild(bar);}
    r.appendChild(cell);
    r.appendChild(el('td',b?(b.rankHolds===null?'n/a':Math.round(b.rankHolds*100)+'%'):''));
    if(withEx)r.appendChild(el('td',ex[m.model]||''));
    D.perspectives.forEach(function(p){r.appendChild(el('td',pct(m.perspectives[p]),signCls(m.perspectives[p])));});
    tb.appendChild(r);
  });
  t.appendChild(tb);
  var n=clear('apart');
  P.notApart.forEach(function(x){n.appendChild(el('div',x.upper+' and '+x.lower+' are not clearly apart: '+x.upper+' is ahead in '+Math.round(x.pAhead*100)+'% of the bootstrap resamples (< 95%).','note'));});
  document.getElementById('weights-desc').textContent=P.description;
  return ranked;
}
function renderWeights(P){
  var t=clear('weights');var tr=el('tr');head(tr,['perspective','weight','metrics (final weight)']);t.appendChild(tr);
  D.perspectives.forEach(function(p){var r=el('tr');r.appendChild(el('td',p,'l'));r.appendChild(el('td',pct(own(P.perspectives,p),1)+'%'));
    var ms=D.catalog.filter(function(m){return m.perspective===p;}).map(function(m){return m.id+' '+pct(own(P.metrics,m.id),2)+'%';}).join(', ');
    var c=el('td',ms,'l');r.appendChild(c);t.appendChild(r);});
}
function heatColor(v){if(v===null||v===undefined)return '#e4e6ea';var h=Math.max(0,Math.min(100,v))*1.2;return 'hsl('+h+',65%,'+(78-Math.abs(v-50)/50*14)+'%)';}
function renderHeat(order){
  var t=clear('heat');var tr=el('tr');tr.appendChild(el('th','model','l'));
  D.catalog.forEach(function(m){var th=el('th',m.id,'m');th.title=m.title+' ('+m.perspective+')';tr.appendChild(th);});t.appendChild(tr);
  order.forEach(function(o){var r=el('tr');r.appendChild(el('td',o.model,'l'));
    D.catalog.forEach(function(m){var c=own(own(D.perMetric,o.model),m.id);var v=c?c.raw:null;var td=el('td',v===null||v===undefined?'—':Math.round(v));td.style.background=heatColor(v);td.title=o.model+' · '+m.id+': '+(v===null||v===undefined?'no scorable sample':v.toFixed(1));r.appendChild(td);});
    t.appendChild(r);});
}
function renderMetricTables(order){
  var t=clear('zt');var tr=el('tr');head(tr,['metric','perspective'].concat(order.map(function(o){return o.model;})));t.appendChild(tr);
  D.metrics.forEach(function(m){var r=el('tr');r.appendChild(el('td',m.id+(m.degenerate?' *':''),'l'));r.appendChild(el('td',m.perspective||'','l'));
    order.forEach(function(o){var c=own(own(D.perMetric,o.model),m.id);var z=c?c.z:null;r.appendChild(el('td',pct(z,1),signCls(z)));});t.appendChild(r);});
  var u=clear('ut');tr=el('tr');head(tr,['metric','all'].concat(order.map(function(o){return o.model;})));u.appendChild(tr);
  D.metrics.forEach(function(m){var r=el('tr');r.appendChild(el('td',m.id,'l'));r.appendChild(el('td',m.unscorable));
    order.forEach(function(o){var c=own(own(D.perMetric,o.model),m.id);r.appendChild(el('td',c?c.unscorable:''));});u.appendChild(r);});
}
function renderBreakdowns(P, order){
  var host=clear('breakdowns');var labels=Object.keys(D.breakdowns);
  if(!labels.length){host.appendChild(el('p','No requirement labels in the results (pass --requirements to webgrade batch).','sub'));return;}
  labels.forEach(function(label){
    host.appendChild(el('h3','Overall by '+label));var t=el('table');var tr=el('tr');head(tr,[label,'artifacts','average over models'].concat(order.map(function(o){return o.model;})));t.appendChild(tr);
    Object.keys(D.breakdowns[label]).forEach(function(v){var b=D.breakdowns[label][v];var sc=own(own(P.breakdowns,label),v);var r=el('tr');r.setAttribute('data-value',v);r.appendChild(el('td',v,'l'));r.appendChild(el('td',b.artifacts));
      var avg=sc.average;
      var ac=el('td',avg===null?'n/a':pct(avg)+' ('+sc.models+')',avg===null?'':signCls(avg)+' avg');ac.title='unweighted mean of the overalls of the '+sc.models+' model(s) with artifacts of this value';r.appendChild(ac);
      order.forEach(function(o){var f=own(sc.overall,o.model);r.appendChild(el('td',f===undefined?'':pct(f),f===undefined?'':signCls(f)));});t.appendChild(r);});
    host.appendChild(t);
    host.appendChild(el('p','Average over models: the study\u2019s Table 5 figure, the unweighted mean of the overalls of the models with artifacts of that value (how many in brackets); then each model.','sub'));});
}
function render(id){var P=persona(id);var order=renderBoard(P);renderWeights(P);renderHeat(order);renderMetricTables(order);renderBreakdowns(P,order);document.body.setAttribute('data-persona',P.id);}
var sel=document.getElementById('persona');
D.personas.forEach(function(p){var o=el('option',p.id+' — '+p.title);o.value=p.id;sel.appendChild(o);});
sel.value=D.initialPersona;sel.addEventListener('change',function(){render(sel.value);});
var pop=D.population;document.getElementById('pop').textContent=pop.models+' models, '+pop.artifacts+' artifacts ('+pop.failed+' failed), '+pop.requirements+' requirements, '+pop.metrics+' metrics with results. Generated '+D.generatedAt+'.';
document.getElementById('guard').textContent=D.noiseGuard.summary;
if(D.bootstrapInfo)document.getElementById('boot').textContent='95% CI: percentile bootstrap over '+D.bootstrapInfo.iterations+' resamples of the '+D.bootstrapInfo.requirements+' requirements (seed '+D.bootstrapInfo.seed+'); rank holds = share of resamples in which the model keeps this rank.';
var notes=clear('notes');D.notes.forEach(function(n){notes.appendChild(el('li',n));});
render(D.initialPersona);
})();
`;

export function renderReportHtml(data: ReportData): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(data.title)}</title><style>${STYLE}</style></head>
<body>
<h1>${escapeHtml(data.title)}</h1>
<p class="sub" id="pop"></p>
<p><label for="persona">Persona: </label><select id="persona"></select></p>
<p class="sub" id="weights-desc"></p>
<h2>Leaderboard</h2>
<p class="sub">Weighted z per perspective and overall, in % of one standard deviation of the pooled population (the study's Table 4).</p>
<div class="wrap"><table id="board"></table></div>
<p class="sub" id="boot"></p>
<p class="sub" id="guard"></p>
<div id="apart"></div>
<h2>Raw metric scores (mean 0–100 per model)</h2>
<div class="wrap"><table class="heat" id="heat"></table></div>
<h2>Per-metric z (unweighted, % of one SD)</h2>
<div class="wrap"><table id="zt"></table></div>
<p class="sub">* contributes 0: scorable for nobody, or σ = 0.</p>
<h2>Unscorable counts per model and metric</h2>
<div class="wrap"><table id="ut"></table></div>
<h2>Breakdowns by requirement label</h2>
<div id="breakdowns"></div>
<h2>Weights</h2>
<table id="weights"></table>
<h2>Notes</h2>
<ul id="notes"></ul>
<script type="application/json" id="webgrade-data">${scriptJson(data)}</script>
<script>${SCRIPT}</script>
</body></html>
`;
}
