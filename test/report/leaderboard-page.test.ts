import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { renderReportHtml, reportData, reportStandings } from '../../report/leaderboard-html.js';
import { populationFromRows } from '../../weights/aggregate.js';
import { presetWeights } from '../../weights/personas.js';
import { repoRoot } from '../helpers.js';
import { row } from '../weights/synthetic.js';

describe('HTML leaderboard page (eta template, script and style from report/page/)', () => {
  const hostile = `</script><img src=x onerror=alert(1)>`;
  const pop = populationFromRows([row(hostile, 'r0', { 'comment-rate': 60 }), row('B', 'r0', { 'comment-rate': 40 })]);
  const html = renderReportHtml(reportData(reportStandings(pop, presetWeights('dev'), { iterations: 0 }), { title: `A & <b>"q"</b>` }));

  it('escapes the title and keeps results out of markup (the data is JSON with < escaped)', () => {
    assert.match(html, /<title>A &amp; &lt;b&gt;&quot;q&quot;&lt;\/b&gt;<\/title>/);
    assert.ok(!html.includes('<img src=x'), 'a model name is never markup');
    assert.match(html, /\\u003c\/script>\\u003cimg/);
  });

  it('inlines report/page/leaderboard.css and .js as they are', () => {
    for (const f of ['leaderboard.css', 'leaderboard.js']) assert.ok(html.includes(readFileSync(join(repoRoot, 'report', 'page', f), 'utf8')), f);
  });
});
