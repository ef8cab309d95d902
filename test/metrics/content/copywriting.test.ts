import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import copywriting, { fleschReadingEase, isEnglish, sentencesOf, type SubScore } from '../../../metrics/content/copywriting.js';
import type { MetricDetails } from '../../../core/metric.js';
import { testMetric } from '../../metric-tester.js';

const page = (body: string, title = 'Tip calculator') => `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;

/** The sub-score with this id from the details. */
function sub(d: MetricDetails, id: string): SubScore {
  const s = (d.subScores as SubScore[]).find((x) => x.id === id);
  assert.ok(s, `no sub-score ${id}`);
  return s;
}
const subIs = (id: string, score: number | null) => (d: MetricDetails) => assert.equal(sub(d, id).score, score, `${id}: ${JSON.stringify(sub(d, id))}`);

// logPenalty(1, 1) = (1 − log2(1 + 1/2)) × 100 = 41.50; logPenalty(1, 2) = (1 − log2(4/3)) × 100 = 58.50.
testMetric(copywriting, [
  { name: 'a page without visible text is unscorable', html: '<html><body><script>document.body.textContent = "hi"</script></body></html>', unscorable: /no visible text/ },
  { name: 'text only in hidden, aria-hidden, display:none and template elements is not visible', html: page('<p hidden>a</p><div aria-hidden="true">b</div><span style="display: none">c</span><template><p>d</p></template>'), unscorable: /no visible text/ },
  {
    // Applicable: placeholder, punctuation, repetition, terminology, shouting, emoji, spelling (all 100) and
    // page-title (0): 700 / 8 = 87.5. "Hello world." has 2 words: no prose, not English, no headings, no controls.
    name: 'a default <title> costs the page-title sub-score: 7 × 100 + 0 over 8 applicable sub-scores = 87.5',
    html: page('<p>Hello world.</p>', 'Document'),
    score: 87.5,
    details: (d) => {
      subIs('page-title', 0)(d);
      subIs('readability', null)(d);
      assert.match(sub(d, 'heading-hierarchy').note, /short page/);
    },
  },
  { name: 'the same page with a real title scores 100', html: page('<p>Hello world.</p>'), score: 100 },
  {
    // placeholder: 1 of 2 blocks → 58.5; eight other applicable sub-scores at 100: (58.5 + 800) / 9 = 95.39.
    name: 'lorem ipsum in one of two blocks: placeholder-text 58.5, mean 95.39',
    html: page('<p>Lorem ipsum dolor sit amet.</p><p>Real text here.</p>'),
    score: 95.39,
    details: (d) => {
      subIs('placeholder-text', 58.5)(d);
      assert.deepEqual(sub(d, 'placeholder-text').examples, ['Lorem ipsum dolor sit amet.']);
    },
  },
  { name: 'code blocks are not prose: lorem ipsum inside <pre> and <code> is not placeholder copy', html: page('<p>Paste your data below.</p><pre>lorem ipsum TODO</pre><code>TODO</code>'), details: subIs('placeholder-text', 100) },
  {
    name: 'one sentence over 25 words out of one prose sentence: sentence-length 41.5',
    html: page(`<p>${Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ')}.</p>`),
    details: subIs('sentence-length', 41.5),
  },
  {
    name: 'heading hierarchy: two <h1> and a skipped level are 2 problems: 100 − 50 = 50',
    html: page('<h1>Main</h1><h1>Second</h1><h2>Part</h2><h4>Deep</h4><p>Text.</p>'),
    details: (d) => {
      subIs('heading-hierarchy', 50)(d);
      assert.deepEqual(sub(d, 'heading-hierarchy').examples, ['2 <h1> headings', 'h2 → h4 skips a level ("Deep")']);
    },
  },
  {
    name: 'a vague link label among two controls: label-clarity 58.5',
    html: page('<p>Save your work.</p><a href="#a">click here</a><button>Save changes</button>'),
    details: (d) => {
      subIs('label-clarity', 58.5)(d);
      assert.deepEqual(sub(d, 'label-clarity').examples, ['a: "click here"']);
    },
  },
  { name: 'an icon-only button without aria-label has no label', html: page('<p>Tools.</p><button><svg></svg></button>'), details: (d) => assert.deepEqual(sub(d, 'label-clarity').examples, ['button: no label']) },
  { name: 'an icon-only button with aria-label is labelled', html: page('<p>Tools.</p><button aria-label="Close dialog"><svg></svg></button>'), details: subIs('label-clarity', 100) },
  {
    name: 'a doubled word in one of two blocks: repetition 58.5',
    html: page('<p>Enter the the amount.</p><p>Press the button.</p>'),
    details: subIs('repetition', 58.5),
  },
  {
    name: 'e-mail and email on one page are one term written two ways: terminology 80',
    html: page('<p>Enter your e-mail address.</p><label>Email</label>'),
    details: (d) => {
      subIs('terminology', 80)(d);
      assert.deepEqual(sub(d, 'terminology').examples, ['"email" / "e-mail"']);
    },
  },
  {
    name: 'three Title Case headings and one Sentence case heading: capitalisation 75',
    html: page('<h1>Split The Bill</h1><h2>Choose Your Tip</h2><h2>See The Result</h2><h2>How this works here</h2>'),
    details: subIs('capitalisation', 75),
  },
  {
    name: 'one sentence in capitals out of two: shouting 58.5',
    html: page('<p>THIS IS THE BEST APP. It splits bills.</p>'),
    details: subIs('shouting', 58.5),
  },
  {
    name: 'the first exclamation is free, the second shouts',
    html: page('<p>Welcome! Try it now! It splits bills.</p>'),
    details: (d) => assert.equal(sub(d, 'shouting').examples.length, 1),
  },
  {
    // 1 emoji in 10 words = 10 per 100 → 100 − 10 × (10 − 2) = 20.
    name: 'one emoji in ten words scores 20 on emoji-density',
    html: page('<p>one two three four five six seven eight nine ten 🎉</p>'),
    details: subIs('emoji-density', 20),
  },
  {
    name: 'a tripled letter and a glued sentence are spelling-like anomalies',
    html: page('<p>This is sooo good.</p><p>It ends here.Then more text.</p>'),
    details: (d) => assert.deepEqual(sub(d, 'spelling-anomalies').examples, ['"sooo"', 'no space after a sentence: "here.Then"']),
  },
  { name: 'acronyms in capitals are not tripled-letter anomalies', html: page('<p>Use the WWW and AAA batteries.</p>'), details: subIs('spelling-anomalies', 100) },
  {
    name: 'non-English text is not judged by the English-only readability and wordiness rules',
    html: page('<p>Geben Sie den Betrag ein. Wählen Sie das Trinkgeld. Teilen Sie die Rechnung.</p>'),
    details: (d) => {
      assert.equal(sub(d, 'readability').note, 'text is not English');
      assert.equal(sub(d, 'wordiness').note, 'text is not English');
    },
  },
  {
    name: 'passive voice and weasel words are wordiness findings',
    html: page('<p>The bill is split by the app. It is very fast for you. Enter the amount of the bill.</p>'),
    details: (d) => {
      const w = sub(d, 'wordiness');
      assert.ok(w.examples.some((e) => /passive/.test(e)), JSON.stringify(w));
      assert.ok((w.score as number) < 100);
    },
  },
  {
    name: 'a minified one-line page is read the same way',
    html: '<!doctype html><html><head><title>Notes</title></head><body><h1>Notes</h1><p>Write a note.</p><button>Add note</button></body></html>',
    score: 100,
  },
  {
    name: 'non-UTF-8 (Latin-1) text is decoded and scored',
    html: Buffer.from('<!doctype html><html><head><meta charset="iso-8859-1"><title>Caf\xe9 menu</title></head><body><p>Caf\xe9 cr\xe8me for the table.</p></body></html>', 'latin1'),
    score: 100,
  },
]);

describe('copywriting text helpers', () => {
  it('splits sentences at end punctuation followed by space, and after CJK full stops', () => {
    assert.deepEqual(sentencesOf('One two. Three four! Five?').map((s) => s.text), ['One two.', 'Three four!', 'Five?']);
    assert.deepEqual(sentencesOf('你好。再见。').map((s) => s.text), ['你好。', '再见。']);
    assert.deepEqual(sentencesOf('Version 1.5 is out.').map((s) => s.text), ['Version 1.5 is out.']);
  });

  it('computes Flesch reading ease: "The cat sat on the mat." = 206.835 − 1.015 × 6 − 84.6 × 1 = 116.145', () => {
    assert.ok(Math.abs(fleschReadingEase(sentencesOf('The cat sat on the mat.')) - 116.145) < 1e-9);
  });

  it('detects English by the share of function words', () => {
    assert.equal(isEnglish(['Enter', 'the', 'amount', 'of', 'the', 'bill']), true);
    assert.equal(isEnglish(['Geben', 'Sie', 'den', 'Betrag', 'ein']), false);
    assert.equal(isEnglish([]), false);
  });
});
