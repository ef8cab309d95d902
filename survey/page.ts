/**
 * The questionnaire page served by `webgrade survey serve`: one self-contained HTML document (no external
 * resources), with the survey definition embedded as JSON.
 *
 * Flow: pick a role (radio group) → rank the 9 perspectives → rank the metrics of each perspective that has more
 * than one → submit. Every list starts in a fresh random order per respondent (shuffled in the page, so every
 * load differs). Each item shows its title and a one-sentence description.
 *
 * Ranking, usable without a mouse (documented behaviour):
 * - each item is a focusable list entry; Alt+↑ / Alt+↓ (or the item's "Move up"/"Move down" buttons, which
 *   carry the item's name in their accessible label) move it; focus follows the moved item;
 * - a polite live region announces "<item> moved to position k of n";
 * - with a mouse, items can also be dragged (HTML drag and drop).
 * The page measures the seconds from load to submit (kept for information: the server measures the time that
 * counts, from the survey token it put in the page) and POSTs `{token, persona, seconds, perspectives, metrics}` as
 * JSON to `/responses`; the server answers 201, and the page confirms with a thank-you message, or shows the
 * server's error.
 */
import { surveyDefinition } from './catalogue.js';
import { DEFAULT_SUITE, type SuiteId } from '../core/metric.js';

/** JSON that is safe inside a <script> element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}

/**
 * The page for one suite's survey (its perspectives and metrics; the submission records the suite). `token` is
 * the survey token the server issued for this page load; the submission carries it back (survey/guards.ts).
 */
export function surveyPage(suite: SuiteId = DEFAULT_SUITE, token = ''): string {
  const def = surveyDefinition(suite);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>webgrade survey: what matters in a generated web app?</title>
<link rel="icon" href="data:,">
<meta name="survey-token" content="${token.replace(/[^A-Za-z0-9._-]/g, '')}">
<style>
  :root { --ink: #1f2937; --muted: #4b5563; --line: #d1d5db; --accent: #1d4ed8; --bg: #f9fafb; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: var(--bg); }
  main { max-width: 760px; margin: 0 auto; padding: 24px 16px 64px; }
  h1 { font-size: 1.6rem; margin: 0 0 8px; }
  h2 { font-size: 1.2rem; margin: 32px 0 4px; }
  .hint { color: var(--muted); margin: 0 0 12px; }
  fieldset { border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; background: #fff; }
  legend { font-weight: 600; padding: 0 4px; }
  .roles label { display: inline-flex; align-items: center; gap: 6px; margin: 4px 16px 4px 0; }
  ol.rank { list-style: none; margin: 0; padding: 0; counter-reset: place; }
  ol.rank li { counter-increment: place; display: grid; grid-template-columns: 2.2em 1fr auto; gap: 8px; align-items: center;
    background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 8px 12px; margin: 6px 0; cursor: grab; }
  ol.rank li::before { content: counter(place) "."; font-weight: 700; color: var(--accent); }
  ol.rank li:focus { outline: 3px solid var(--accent); outline-offset: 2px; }
  ol.rank li.dragging { opacity: 0.5; }
  .item-title { font-weight: 600; display: block; }
  .item-desc { color: var(--muted); font-size: 0.92rem; }
  .moves { display: flex; gap: 4px; }
  button { font: inherit; border-radius: 6px; border: 1px solid var(--line); background: #fff; padding: 4px 10px; cursor: pointer; }
  button:focus { outline: 3px solid var(--accent); outline-offset: 1px; }
  button.primary { background: var(--accent); color: #fff; border-color: var(--accent); padding: 10px 20px; font-weight: 600; }
  .sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
  #status { margin-top: 16px; font-weight: 600; }
  #status.error { color: #b91c1c; }
  #thanks { background: #ecfdf5; border: 1px solid #10b981; border-radius: 8px; padding: 16px; }
</style>
</head>
<body>
<main>
  <h1>What matters most in a generated web app?</h1>
  <p class="hint">Your answers set how much each quality counts when web apps written by AI models are compared.
  It takes about five minutes. Rank by dragging, or with the keyboard: focus an item, then press Alt+↑ or Alt+↓
  (or use its Move up / Move down buttons).</p>
  <form id="survey" novalidate>
    <fieldset class="roles" id="roles">
      <legend>1. Which role describes you best?</legend>
    </fieldset>
    <section aria-labelledby="persp-h">
      <h2 id="persp-h">2. Rank these qualities, most important first</h2>
      <p class="hint" id="persp-hint">Top of the list = matters most to you.</p>
      <ol class="rank" id="perspectives" aria-labelledby="persp-h" aria-describedby="persp-hint"></ol>
    </section>
    <div id="metric-sections"></div>
    <p><button type="submit" class="primary">Submit my answers</button></p>
    <p id="status" role="status" aria-live="polite"></p>
  </form>
  <div id="thanks" hidden tabindex="-1"><h2>Thank you!</h2><p>Your answers were saved.</p></div>
  <p class="sr-only" aria-live="polite" id="announce"></p>
</main>
<script id="definition" type="application/json">${scriptJson(def)}</script>
<script>
(function () {
  'use strict';
  var def = JSON.parse(document.getElementById('definition').textContent);
  var started = Date.now();
  var announce = document.getElementById('announce');

  function shuffle(list) {
    var a = list.slice();
    for (var i = a.length - 1; i > 0; i--) { var j = Math.floor(Math.random() * (i + 1)); var t = a[i]; a[i] = a[j]; a[j] = t; }
    return a;
  }
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function position(li) { return Array.prototype.indexOf.call(li.parentNode.children, li) + 1; }
  function say(li) {
    announce.textContent = li.dataset.title + ' moved to position ' + position(li) + ' of ' + li.parentNode.children.length;
  }
  function move(li, delta) {
    var list = li.parentNode;
    if (delta < 0 && li.previousElementSibling) list.insertBefore(li, li.previousElementSibling);
    else if (delta > 0 && li.nextElementSibling) list.insertBefore(li.nextElementSibling, li);
    else return;
    li.focus();
    say(li);
  }
  function rankList(list, items) {
    shuffle(items).forEach(function (item) {
      var li = el('li', { tabindex: '0', draggable: 'true', 'data-id': item.id, 'aria-describedby': 'desc-' + list.id + '-' + item.id });
      li.dataset.title = item.title;
      var text = el('span', {});
      text.appendChild(el('span', { 'class': 'item-title' }, item.title));
      text.appendChild(el('span', { 'class': 'item-desc', id: 'desc-' + list.id + '-' + item.id }, item.description));
      var moves = el('span', { 'class': 'moves' });
      var up = el('button', { type: 'button', 'aria-label': 'Move ' + item.title + ' up', tabindex: '-1' }, '↑');
      var down = el('button', { type: 'button', 'aria-label': 'Move ' + item.title + ' down', tabindex: '-1' }, '↓');
      up.addEventListener('click', function () { move(li, -1); });
      down.addEventListener('click', function () { move(li, 1); });
      moves.appendChild(up); moves.appendChild(down);
      li.appendChild(text); li.appendChild(moves);
      li.setAttribute('aria-label', item.title);
      li.addEventListener('keydown', function (e) {
        if (e.target !== li) return;
        if (e.altKey && e.key === 'ArrowUp') { e.preventDefault(); move(li, -1); }
        else if (e.altKey && e.key === 'ArrowDown') { e.preventDefault(); move(li, 1); }
      });
      li.addEventListener('focusin', function () { up.tabIndex = 0; down.tabIndex = 0; });
      li.addEventListener('focusout', function (e) { if (!li.contains(e.relatedTarget)) { up.tabIndex = -1; down.tabIndex = -1; } });
      li.addEventListener('dragstart', function (e) { li.classList.add('dragging'); e.dataTransfer.effectAllowed = 'move'; e.dataTransfer.setData('text/plain', item.id); });
      li.addEventListener('dragend', function () { li.classList.remove('dragging'); say(li); });
      list.appendChild(li);
    });
    list.addEventListener('dragover', function (e) {
      var dragging = list.querySelector('.dragging');
      if (!dragging) return;
      e.preventDefault();
      var after = Array.prototype.find.call(list.children, function (c) {
        if (c === dragging) return false;
        var r = c.getBoundingClientRect();
        return e.clientY < r.top + r.height / 2;
      });
      if (after) list.insertBefore(dragging, after); else list.appendChild(dragging);
    });
  }
  function order(list) { return Array.prototype.map.call(list.children, function (li) { return li.dataset.id; }); }

  var roles = document.getElementById('roles');
  def.roles.forEach(function (r) {
    var label = el('label', {});
    var input = el('input', { type: 'radio', name: 'role', value: r.id, required: '' });
    label.appendChild(input);
    label.appendChild(document.createTextNode(r.title));
    roles.appendChild(label);
  });
  rankList(document.getElementById('perspectives'), def.perspectives);
  var sections = document.getElementById('metric-sections');
  def.metrics.forEach(function (group, i) {
    var sec = el('section', { 'aria-labelledby': 'm-h-' + group.perspective });
    sec.appendChild(el('h2', { id: 'm-h-' + group.perspective }, (i + 3) + '. Within “' + group.title + '”, rank these, most important first'));
    var ol = el('ol', { 'class': 'rank', id: 'm-' + group.perspective, 'data-perspective': group.perspective, 'aria-labelledby': 'm-h-' + group.perspective });
    sec.appendChild(ol);
    sections.appendChild(sec);
    rankList(ol, group.items);
  });

  var form = document.getElementById('survey');
  var status = document.getElementById('status');
  form.addEventListener('submit', function (e) {
    e.preventDefault();
    var role = form.querySelector('input[name=role]:checked');
    if (!role) { status.className = 'error'; status.textContent = 'Please choose your role first.'; form.querySelector('input[name=role]').focus(); return; }
    var metrics = {};
    Array.prototype.forEach.call(sections.querySelectorAll('ol.rank'), function (ol) { metrics[ol.dataset.perspective] = order(ol); });
    var body = { token: document.querySelector('meta[name=survey-token]').content, suite: def.suite, persona: role.value, seconds: Math.round((Date.now() - started) / 1000), perspectives: order(document.getElementById('perspectives')), metrics: metrics };
    status.className = ''; status.textContent = 'Saving…';
    fetch('responses', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      .then(function (res) { return res.json().then(function (j) { return { ok: res.ok, j: j }; }); })
      .then(function (r) {
        if (!r.ok) throw new Error(r.j && r.j.error ? r.j.error : 'the server did not accept the answers');
        form.hidden = true;
        var thanks = document.getElementById('thanks');
        thanks.hidden = false; thanks.focus();
      })
      .catch(function (err) { status.className = 'error'; status.textContent = 'Not saved: ' + err.message; });
  });
})();
</script>
</body>
</html>
`;
}
