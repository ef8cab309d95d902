/**
 * The report's page templates (eta: `<%= %>` escapes, `<%~ %>` inserts HTML made by report/details.ts, which
 * escapes itself). Each page gets `it.root` (the way back to the report's root from its folder) and `it.h`, the
 * formatting helpers of report/write.ts.
 */

const LAYOUT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title><%= it.title %> · <%= it.report %></title>
<link rel="stylesheet" href="<%= it.root %>assets/report.css">
<link rel="icon" href="data:,">
</head><body>
<a class="skip" href="#main">Skip to content</a>
<header class="top"><nav aria-label="Report"><a class="brand" href="<%= it.root %>index.html">webgrade report</a><a href="<%= it.root %>failures.html">Failures</a><a href="<%= it.root %>leaderboard.html">Full leaderboard</a><% if (it.hasCompare) { %><a href="<%= it.root %>compare.html">Compared with base</a><% } %></nav></header>
<main id="main">
<% if (it.crumbs && it.crumbs.length) { %><nav class="crumbs" aria-label="Breadcrumb"><ol><% it.crumbs.forEach(function(c){ %><li><a href="<%= it.root + c.href %>"><%= c.label %></a></li><% }) %></ol></nav><% } %>
<%~ it.body %>
</main>
<% if (it.script) { %><script src="<%= it.root %>assets/report.js"></script><% } %>
</body></html>
`;

/** A thumbnail link to an artifact page (its desktop screenshot, or a placeholder saying why there is none). */
const THUMB = `<a href="<%= it.root + it.v.href %>"><% if (it.shot) { %><img src="<%= it.root + it.shot.src %>" width="<%= it.shot.width %>" height="<%= it.shot.height %>" alt="Screenshot of <%= it.v.model %>'s page for requirement <%= it.v.requirement %>"><% } else { %><span class="noshot">no screenshot: <%= it.why %></span><% } %></a>`;

const INDEX = `<% layout('@layout') %>
<h1><%= it.m.title %></h1>
<p class="sub"><%= it.m.population.models %> models, <%= it.m.population.artifacts %> artifacts (<%= it.m.population.failed %> failed), <%= it.m.population.requirements %> requirements, <%= it.m.population.metrics %> metrics with results. Generated <%= it.m.generatedAt %>.</p>
<h2 id="board-h">Leaderboard</h2>
<p><label for="persona">Persona:</label> <select id="persona"><% it.m.boards.forEach(function(b){ %><option value="<%= b.id %>"<%= b.id === it.m.persona ? ' selected' : '' %>><%= b.id %> — <%= b.title %></option><% }) %></select></p>
<% it.m.boards.forEach(function(b){ %>
<section class="board" data-persona="<%= b.id %>"<%= b.id === it.m.persona ? '' : ' hidden' %> aria-labelledby="board-h">
<p class="sub"><%= b.description %></p>
<div class="wrap"><table><caption class="sub">Weighted z in % of one standard deviation (<%= b.id %>)</caption>
<thead><tr><th scope="col" class="n">rank</th><th scope="col">model</th><th scope="col" class="n">overall</th><th scope="col">95% CI</th><% it.m.perspectives.forEach(function(p){ %><th scope="col" class="n"><%= it.m.leaderboard.perspectiveShort[p] || p %></th><% }) %></tr></thead>
<tbody><% b.rows.forEach(function(r){ %><tr><td class="n"><%= r.rank %></td><td><a href="<%= it.h.modelHref(r.model) %>"><%= r.model %></a></td><td class="n <%= it.h.cls(r.overall) %>"><%= it.h.pct(r.overall) %></td><td><%= r.ci ? it.h.pct(r.ci[0]) + ' … ' + it.h.pct(r.ci[1]) : 'n/a' + (r.ciReason ? ': ' + r.ciReason : '') %></td><% it.m.perspectives.forEach(function(p){ %><td class="n <%= it.h.cls(r.perspectives[p]) %>"><%= it.h.pct(r.perspectives[p]) %></td><% }) %></tr><% }) %></tbody></table></div>
</section><% }) %>
<p class="sub">The heatmap of raw scores, unscorable counts, label breakdowns and the noise guard are on the <a href="leaderboard.html">full leaderboard</a>.</p>
<h2>Requirements</h2>
<ul><% it.m.requirements.forEach(function(r){ %><li><a href="<%= r.href %>">Requirement <%= r.id %></a> (<%= r.artifacts.length %> artifacts)</li><% }) %></ul>
<h2>Failures</h2>
<p><a href="failures.html">Failures per metric and reason</a>: <%= it.m.failures.slice(0, 3).map(function(f){ return f.metric + ' ' + f.artifacts; }).join(', ') %>…</p>
<% if (it.m.notes.length) { %><h2>Notes</h2><ul><% it.m.notes.forEach(function(n){ %><li><%= n %></li><% }) %></ul><% } %>
`;

const MODEL = `<% layout('@layout') %>
<h1>Model <%= it.v.model %></h1>
<p class="sub"><%= it.v.artifacts.length %> artifacts. z: the model's mean z per metric against every model's artifacts, in % of one standard deviation.</p>
<h2>Strong and weak</h2>
<div class="side"><div><h3>Strongest metrics</h3><% if (it.v.strengths.length) { %><ul><% it.v.strengths.forEach(function(s){ %><li><%= s.title %> (<%= s.id %>): z <span class="pos"><%= it.h.pct(s.z) %></span>, mean score <%= it.h.score(s.raw) %></li><% }) %></ul><% } else { %><p class="sub">No metric above the others.</p><% } %></div>
<div><h3>Weakest metrics</h3><% if (it.v.weaknesses.length) { %><ul><% it.v.weaknesses.forEach(function(s){ %><li><%= s.title %> (<%= s.id %>): z <span class="neg"><%= it.h.pct(s.z) %></span>, mean score <%= it.h.score(s.raw) %></li><% }) %></ul><% } else { %><p class="sub">No metric below the others.</p><% } %></div></div>
<h2>Best artifacts</h2>
<div class="cards"><% it.v.best.forEach(function(a){ %><div class="card"><h3><a href="<%= it.root + a.href %>">Requirement <%= a.requirement %></a></h3><%~ include('@thumb', it.h.thumb(a)) %><p>Page overall <span class="<%= it.h.cls(a.overall) %>"><%= it.h.pct(a.overall) %></span></p></div><% }) %></div>
<% if (it.v.worst.length) { %><h2>Worst artifacts</h2>
<div class="cards"><% it.v.worst.forEach(function(a){ %><div class="card"><h3><a href="<%= it.root + a.href %>">Requirement <%= a.requirement %></a></h3><%~ include('@thumb', it.h.thumb(a)) %><p>Page overall <span class="<%= it.h.cls(a.overall) %>"><%= it.h.pct(a.overall) %></span></p></div><% }) %></div><% } %>
<h2>Every metric</h2>
<div class="wrap"><table><thead><tr><th scope="col">metric</th><th scope="col" class="n">z</th><th scope="col" class="n">mean score</th><th scope="col" class="n">unscorable</th></tr></thead>
<tbody><% it.v.metrics.forEach(function(s){ %><tr><td><%= s.title %> <span class="sub">(<%= s.id %>)</span></td><td class="n <%= it.h.cls(s.z) %>"><%= it.h.pct(s.z) %></td><td class="n"><%= it.h.score(s.raw) %></td><td class="n"><%= s.unscorable %></td></tr><% }) %></tbody></table></div>
<h2>Every artifact</h2>
<ul><% it.v.artifacts.forEach(function(a){ %><li><a href="<%= it.root + a.href %>">Artifact for requirement <%= a.requirement %></a>: <%= a.row.status === 'ok' ? 'page overall ' + it.h.pct(a.overall) : 'failed: ' + (a.row.error || '') %> (<a href="<%= it.h.requirementHref(a.requirement) %>">every model on requirement <%= a.requirement %></a>)</li><% }) %></ul>
`;

const REQUIREMENT = `<% layout('@layout') %>
<h1>Requirement <%= it.r.id %></h1>
<% if (it.text) { %><blockquote class="req"><%= it.text %></blockquote><% } else { %><p class="sub">The requirement's text is shown when the report is given the requirements file (report --requirements).</p><% } %>
<% if (it.rates.length) { %><h2>Requirement tests across models</h2>
<div class="wrap"><table><thead><tr><th scope="col">test</th><th scope="col" class="n">pass rate</th><th scope="col" class="n">passed</th><th scope="col" class="n">failed</th><th scope="col" class="n">not run</th><th scope="col">per model</th></tr></thead><tbody>
<% it.rates.forEach(function(t){ %><tr><td><%= t.id %><% if (t.title) { %>: <%= t.title %><% } %></td><td class="n"><%= t.rate === null ? '–' : Math.round(t.rate * 100) + ' %' %></td><td class="n"><%= t.passed %></td><td class="n"><%= t.failed %></td><td class="n"><%= t.notRun %></td><td><% t.models.forEach(function(m, i){ %><%= i ? ', ' : '' %><span class="<%= m.passed === true ? 'pos' : m.passed === false ? 'neg' : '' %>" title="<%= m.reason || '' %>"><%= m.model %> <%= m.passed === true ? '✓' : m.passed === false ? '✗' : '–' %></span><% }) %></td></tr><% }) %>
</tbody></table></div><% } %>
<h2>Artifacts</h2>
<p class="sub">Every model's artifact, best page overall first. Key scores: the mean score (0–100) of each perspective's metrics.</p>
<div class="cards"><% it.r.artifacts.forEach(function(a){ %><div class="card"><h2><a href="<%= it.root + a.href %>"><%= a.model %></a></h2><%~ include('@thumb', it.h.thumb(a)) %>
<% if (a.row.status === 'ok') { %><p>Page overall <span class="<%= it.h.cls(a.overall) %>"><%= it.h.pct(a.overall) %></span></p>
<ul class="kv"><% Object.keys(a.row.perspectives || {}).forEach(function(p){ %><li><span class="k"><%= p %></span>: <%= it.h.score(a.row.perspectives[p].meanScore) %></li><% }) %></ul><% } else { %><p class="neg">failed: <%= a.row.error %></p><% } %></div><% }) %></div>
`;

const ARTIFACT = `<% layout('@layout') %>
<h1><%= it.v.model %> · requirement <%= it.v.requirement %></h1>
<p class="sub"><% if (it.v.row.status === 'ok') { %>Page overall <span class="<%= it.h.cls(it.v.overall) %>"><%= it.h.pct(it.v.overall) %></span> (<%= it.persona %>).<% } else { %><span class="neg">Failed: <%= it.v.row.error %></span><% } %> <a href="<%= it.fileUrl %>">The artifact's files</a> (<%= it.v.row.artifact %>).</p>
<h2>Screenshots</h2>
<div class="shots"><% if (it.img.desktop) { %><figure class="desk"><img src="<%= it.root + it.img.desktop.src %>" width="<%= it.img.desktop.width %>" height="<%= it.img.desktop.height %>" alt="Desktop screenshot of <%= it.v.model %>'s page for requirement <%= it.v.requirement %>"><figcaption>desktop viewport</figcaption></figure><% } else { %><p class="noshot">No desktop screenshot: <%= it.img.why %></p><% } %>
<% if (it.img.phone) { %><figure class="phone"><img src="<%= it.root + it.img.phone.src %>" width="<%= it.img.phone.width %>" height="<%= it.img.phone.height %>" alt="Phone screenshot of the same page"><figcaption>phone viewport</figcaption></figure><% } %></div>
<% if (it.cmp) { %><h2>Against the base run</h2>
<div class="side"><figure><% if (it.cmp.img.desktop) { %><img src="<%= it.root + it.cmp.img.desktop.src %>" width="<%= it.cmp.img.desktop.width %>" height="<%= it.cmp.img.desktop.height %>" alt="Desktop screenshot of the base run's page"><% } else { %><span class="noshot">no base screenshot</span><% } %><figcaption>base: <%= it.cmp.label %></figcaption></figure>
<figure><% if (it.img.desktop) { %><img src="<%= it.root + it.img.desktop.src %>" width="<%= it.img.desktop.width %>" height="<%= it.img.desktop.height %>" alt="Desktop screenshot of this run's page"><% } else { %><span class="noshot">no screenshot</span><% } %><figcaption>head: this report's run</figcaption></figure></div>
<div class="wrap"><table><thead><tr><th scope="col">metric</th><th scope="col" class="n">base</th><th scope="col" class="n">head</th><th scope="col" class="n">Δ</th><th scope="col">model's change over all requirements</th></tr></thead><tbody>
<% it.cmp.rows.forEach(function(c){ %><tr><td><%= c.metric %></td><td class="n"><%= it.h.score(c.base) %></td><td class="n"><%= it.h.score(c.head) %></td><td class="n <%= it.h.cls(c.delta) %>"><%= c.delta === null ? '—' : it.h.signed(c.delta) %></td><td><% if (c.verdict) { %><span class="pill <%= c.verdict %>"><%= c.verdict %></span> <%= c.text %><% } %></td></tr><% }) %></tbody></table></div><% } %>
<h2>Scores</h2>
<div class="wrap"><table><thead><tr><th scope="col">metric</th><th scope="col" class="n">score</th><th scope="col">reason</th></tr></thead><tbody>
<% it.v.row.metrics.forEach(function(m){ %><tr><td><a href="#m-<%= m.id %>"><%= m.title %></a> <span class="sub">(<%= m.id %>)</span></td><td class="n"><%= m.score === null ? 'unscorable' : it.h.score(m.score) %></td><td><%= m.score === null ? (m.reason || '') : (m.summary || '') %></td></tr><% }) %></tbody></table></div>
<% if (it.tests.length) { %><h2>Requirement tests</h2>
<div class="pics"><% it.tests.forEach(function(t){ %><figure><% if (t.picture) { %><img src="<%= it.root + t.picture.src %>" width="<%= t.picture.width %>" height="<%= t.picture.height %>" alt="<%= t.picture.caption %>"><% } %><figcaption><strong class="<%= t.passed === true ? 'pos' : t.passed === false ? 'neg' : '' %>"><%= t.id %>: <%= t.passed === true ? 'passed' : t.passed === false ? 'failed' : 'not run' %></strong><% if (t.title) { %> (<%= t.title %>)<% } %><% if (t.reason) { %>: <%= t.reason %><% } %><% if (!t.picture && t.passed !== null) { %> (no after-screenshot kept)<% } %></figcaption></figure><% }) %></div><% } %>
<% if (it.img.pictures.length) { %><h2>Pictures</h2>
<div class="pics"><% it.img.pictures.forEach(function(p){ %><figure><img src="<%= it.root + p.src %>" width="<%= p.width %>" height="<%= p.height %>" alt="<%= p.caption %>"><figcaption><%= p.caption %></figcaption></figure><% }) %></div><% } %>
<h2>Details of every metric</h2>
<% it.v.row.metrics.forEach(function(m){ %><details class="metric" id="m-<%= m.id %>"><summary><%= m.title %>: <%= m.score === null ? 'unscorable' : it.h.score(m.score) %></summary>
<p><%= m.score === null ? (m.reason || '') : (m.summary || '') %></p><%~ it.h.details(m.details) %></details><% }) %>
<h2>How it was scored</h2>
<ul class="kv"><li><span class="k">network</span>: <%= it.network %></li><% if (it.v.row.browser) { %><li><span class="k">browser</span>: <%= it.v.row.browser %></li><% } %>
<% Object.keys(it.settings).forEach(function(k){ %><li><span class="k"><%= k %></span>: <%= it.settings[k] %></li><% }) %>
<% if (it.dropped.length) { %><li><span class="k">pictures not kept</span>: <%= it.dropped.join('; ') %></li><% } %>
<% if (it.img.skipped.length) { %><li><span class="k">pictures not copied</span>: <%= it.img.skipped.join('; ') %></li><% } %></ul>
`;

const FAILURES = `<% layout('@layout') %>
<h1>Failures per metric and reason</h1>
<p class="sub">Per metric: the artifacts where it was unscorable or scored below 100, grouped by reason (numbers folded into #); rows that failed as a whole are under "(row failed)".</p>
<% it.m.failures.forEach(function(f){ %><h2><%= f.metric %>: <%= f.artifacts %> artifact<%= f.artifacts === 1 ? '' : 's' %></h2>
<div class="wrap"><table><thead><tr><th scope="col" class="n">artifacts</th><th scope="col">reason</th><th scope="col">examples</th></tr></thead><tbody>
<% f.reasons.forEach(function(r){ %><tr><td class="n"><%= r.count %></td><td><%= r.reason %></td><td><% r.examples.forEach(function(e, i){ %><%= i ? ', ' : '' %><a href="<%= it.root + e.href %>"><%= e.model %>/<%= e.requirement %></a><% }) %></td></tr><% }) %></tbody></table></div><% }) %>
`;

const COMPARE = `<% layout('@layout') %>
<h1>Compared with the base run</h1>
<p class="sub"><%= it.c.base %> → <%= it.c.head %>: <%= it.c.regressions.length %> regressions, <%= it.c.improvements.length %> improvements over <%= it.c.requirements %> shared requirements. Named only when the paired bootstrap interval excludes 0 and the change is above the metric's rerun noise.</p>
<% ;[['Regressed', it.c.regressions], ['Improved', it.c.improvements]].forEach(function(g){ %><h2><%= g[0] %></h2>
<% if (g[1].length) { %><div class="wrap"><table><thead><tr><th scope="col">model</th><th scope="col">metric</th><th scope="col" class="n">base</th><th scope="col" class="n">head</th><th scope="col" class="n">Δ</th><th scope="col">95% CI</th><th scope="col" class="n">requirements</th></tr></thead><tbody>
<% g[1].forEach(function(c){ %><tr><td><a href="<%= it.h.modelHref(c.model) %>"><%= c.model %></a></td><td><%= c.metric %></td><td class="n"><%= it.h.score(c.baseMean) %></td><td class="n"><%= it.h.score(c.headMean) %></td><td class="n <%= it.h.cls(c.delta) %>"><%= it.h.signed(c.delta) %></td><td><%= c.ci ? it.h.signed(c.ci[0]) + ' … ' + it.h.signed(c.ci[1]) : 'n/a' %></td><td class="n"><%= c.n %></td></tr><% }) %></tbody></table></div><% } else { %><p class="sub">None.</p><% } %><% }) %>
<% if (it.c.onlyBase.length || it.c.onlyHead.length) { %><p class="sub">Only in base: <%= it.c.onlyBase.join(', ') || 'none' %>; only in head: <%= it.c.onlyHead.join(', ') || 'none' %>.</p><% } %>
`;

export const TEMPLATES: Record<string, string> = {
  '@layout': LAYOUT,
  '@thumb': THUMB,
  '@index': INDEX,
  '@model': MODEL,
  '@requirement': REQUIREMENT,
  '@artifact': ARTIFACT,
  '@failures': FAILURES,
  '@compare': COMPARE,
};
