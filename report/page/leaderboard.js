// The HTML leaderboard's page script (inlined by report/leaderboard-html.ts): fills every table from the embedded
// data (#webgrade-data) and switches persona; every score it shows was computed in Node, it derives none.
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
