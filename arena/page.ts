/**
 * The arena's page (arena/server.ts serves it): one pair at a time, the requirement on top and the two pages side
 * by side, each live in its sandboxed frame (arena/frames.ts), with its kept screenshot over it while it loads.
 *
 * - Everything that comes from the results or requirements (ids, text) goes through eta's escaping (`<%= %>`);
 *   model names are never on the page (the votes are blind, as in the arenas).
 * - The person votes with buttons or keys, as the arenas do: ← the left page is better, → the right, = a tie,
 *   x both are bad; u (or Backspace) takes back their last vote and shows that pair again. Keys work while the
 *   arena has the focus; inside a frame they are the page's own (click outside the frames, or press a button).
 * - A vote is POSTed as JSON with the rater's token and the pair's id, never with model names: the server knows
 *   which models were shown where. On success the page loads the next pair.
 * - The page listens to no `message` event: nothing a framed page posts reaches it. Its policy (`arenaCsp`)
 *   allows scripts and styles only with this load's nonce, connections only to the arena, and frames from
 *   exactly the two artifact origins (which also bars the frames from navigating anywhere else); no referrer
 *   leaves it (the token is in its address).
 * - The screenshot hides when its frame has loaded, when clicked, or after SHOT_MS.
 */
import { Eta } from 'eta';

/** The screenshot is hidden at the latest this long after the page loads. */
export const SHOT_MS = 10_000;

export interface PairView {
  rater: string;
  token: string;
  /** This rater's votes in the file, and the distinct pairs they judged of all there are. */
  votes: number;
  judged: number;
  pairs: number;
  requirement: string;
  /** The requirement's text, when known. */
  text?: string;
  pairId: string;
  left: { src: string; shot?: string };
  right: { src: string; shot?: string };
}

export interface DoneView {
  rater: string;
  token: string;
  votes: number;
  judged: number;
  pairs: number;
  message: string;
}

const STYLE = `
  :root { --ink: #1f2937; --muted: #4b5563; --line: #d1d5db; --accent: #1d4ed8; --bg: #f3f4f6; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: var(--bg); }
  header { display: flex; justify-content: space-between; gap: 16px; padding: 8px 16px; background: #fff; border-bottom: 1px solid var(--line); }
  header b { color: var(--accent); }
  .req { padding: 10px 16px; }
  .req h1 { font-size: 1rem; margin: 0 0 4px; color: var(--muted); font-weight: 600; }
  .req p { margin: 0; white-space: pre-wrap; max-height: 7.5em; overflow: auto; }
  .pair { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; padding: 0 16px; }
  figure { margin: 0; display: flex; flex-direction: column; }
  figcaption { font-weight: 700; padding: 4px 0; }
  .box { position: relative; height: calc(100vh - 260px); min-height: 320px; border: 1px solid var(--line); border-radius: 6px; background: #fff; overflow: hidden; }
  .box iframe { position: absolute; inset: 0; width: 100%; height: 100%; border: 0; }
  .box .shot { position: absolute; inset: 0; background: #fff; cursor: pointer; }
  .box .shot img { width: 100%; display: block; }
  .box .shot span { position: absolute; top: 8px; right: 8px; background: rgba(31,41,55,.85); color: #fff; padding: 2px 8px; border-radius: 4px; font-size: .85rem; }
  .box .shot.gone { display: none; }
  nav { display: flex; flex-wrap: wrap; justify-content: center; gap: 8px; padding: 12px 16px; }
  button { font: inherit; padding: 8px 14px; border-radius: 6px; border: 1px solid var(--line); background: #fff; cursor: pointer; }
  button.vote { border-color: var(--accent); }
  button:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
  kbd { font: .85em ui-monospace, monospace; border: 1px solid var(--line); border-radius: 3px; padding: 0 4px; background: var(--bg); }
  #status { text-align: center; min-height: 1.5em; margin: 0 16px 12px; color: var(--muted); }
  .done { max-width: 640px; margin: 48px auto; background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 24px; }
`;

/** The page's script: keys and buttons → POST, then the next pair. No `message` listener, by design. */
const SCRIPT = `
(function () {
  var token = document.querySelector('meta[name="arena-token"]').content;
  var pair = document.querySelector('meta[name="arena-pair"]');
  var status = document.getElementById('status');
  var busy = false;
  function next() { location.replace('/?t=' + encodeURIComponent(token)); }
  function post(path, body) {
    if (busy) return;
    busy = true;
    status.textContent = 'saving…';
    body.t = token;
    fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), credentials: 'omit', referrerPolicy: 'no-referrer' })
      .then(function (r) { return r.json().then(function (j) { return { ok: r.ok, j: j }; }); })
      .then(function (x) { if (x.ok) next(); else { busy = false; status.textContent = x.j.error || 'not saved'; } })
      .catch(function () { busy = false; status.textContent = 'the arena did not answer: is it still running?'; });
  }
  function vote(choice) { if (pair) post('/vote', { pair: pair.content, choice: choice }); }
  function undo() { post('/undo', {}); }
  document.querySelectorAll('[data-choice]').forEach(function (b) { b.addEventListener('click', function () { vote(b.getAttribute('data-choice')); }); });
  var u = document.getElementById('undo');
  if (u) u.addEventListener('click', undo);
  document.addEventListener('keydown', function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    var k = e.key;
    if (k === 'ArrowLeft') vote('left');
    else if (k === 'ArrowRight') vote('right');
    else if (k === '=') vote('tie');
    else if (k === 'x' || k === 'X') vote('both-bad');
    else if (k === 'u' || k === 'U' || k === 'Backspace') undo();
    else return;
    e.preventDefault();
  });
  document.querySelectorAll('.box').forEach(function (box) {
    var shot = box.querySelector('.shot');
    var frame = box.querySelector('iframe');
    if (!shot) return;
    function hide() { shot.classList.add('gone'); }
    frame.addEventListener('load', hide);
    shot.addEventListener('click', hide);
    setTimeout(hide, ${SHOT_MS});
  });
})();
`;

const HEAD = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><link rel="icon" href="data:,">
<title><%= it.title %></title>
<meta name="arena-token" content="<%= it.token %>">
<% if (it.pairId) { %><meta name="arena-pair" content="<%= it.pairId %>"><% } %>
<style nonce="<%= it.nonce %>">${STYLE}</style></head><body>
<header><span>webgrade arena · rater <b><%= it.rater %></b></span><span id="count"><b><%= it.votes %></b> <%= it.votes === 1 ? 'vote' : 'votes' %> given · <%= it.judged %> of <%= it.pairs %> pairs judged</span></header>
`;

const SIDE = `<figure><figcaption><%= it.label %></figcaption><div class="box">
<iframe sandbox="allow-scripts" referrerpolicy="no-referrer" title="<%= it.label %>: the live page" src="<%= it.src %>"></iframe>
<% if (it.shot) { %><div class="shot" title="screenshot while the live page loads (click to hide)"><img alt="screenshot of <%= it.label %>" src="<%= it.shot %>"><span>screenshot: the live page is loading</span></div><% } %>
</div></figure>`;

const PAIR = `${HEAD}<section class="req"><h1>Requirement <%= it.requirement %></h1>
<p><%= it.text === undefined ? 'Only the id of this requirement is known (start the arena with --requirements to show its text).' : it.text %></p></section>
<div class="pair"><%~ include('side', { label: 'Left page', src: it.left.src, shot: it.left.shot }) %><%~ include('side', { label: 'Right page', src: it.right.src, shot: it.right.shot }) %></div>
<nav aria-label="vote">
<button class="vote" data-choice="left"><kbd>←</kbd> Left is better</button>
<button class="vote" data-choice="tie"><kbd>=</kbd> Tie</button>
<button class="vote" data-choice="right">Right is better <kbd>→</kbd></button>
<button class="vote" data-choice="both-bad"><kbd>x</kbd> Both are bad</button>
<button id="undo"><kbd>u</kbd> Undo my last vote</button>
</nav><p id="status" aria-live="polite">Use both pages, then vote. Keys work when the focus is outside the pages.</p>
<script nonce="<%= it.nonce %>">${SCRIPT}</script></body></html>`;

const DONE = `${HEAD}<div class="done"><p><%= it.message %></p><button id="undo"><kbd>u</kbd> Undo my last vote</button><p id="status" aria-live="polite"></p></div>
<script nonce="<%= it.nonce %>">${SCRIPT}</script></body></html>`;

const eta = new Eta({ autoEscape: true, autoTrim: false, cache: true });
eta.loadTemplate('@side', SIDE);
eta.loadTemplate('@pair', PAIR.replace(/include\('side'/g, "include('@side'"));
eta.loadTemplate('@done', DONE);

/** The arena page's Content-Security-Policy (module comment). */
export function arenaCsp(nonce: string, frameOrigins: readonly string[]): string {
  return [
    `default-src 'none'`,
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    `img-src 'self' data:`,
    `connect-src 'self'`,
    `frame-src ${frameOrigins.join(' ') || "'none'"}`,
    `frame-ancestors 'none'`,
    `form-action 'none'`,
    `base-uri 'none'`,
  ].join('; ');
}

export function pairPage(v: PairView, nonce: string): string {
  return eta.render('@pair', { ...v, nonce, title: `webgrade arena: requirement ${v.requirement}` });
}

export function donePage(v: DoneView, nonce: string): string {
  return eta.render('@done', { ...v, nonce, title: 'webgrade arena', pairId: undefined });
}
