import { join } from 'node:path';
import Database from 'better-sqlite3';
import { readDatasetText, scifactDir } from '../../../../bench/shared/datasets';
import { porterStem } from '../../../../core/shared/text/porter';
import { tokens } from '../../../../core/shared/text/tokenize';

/** The terms FTS5 indexes for each text, in order: the reference tokens() must reproduce. */
function fts5Tokens(texts: readonly string[]): string[][] {
  const db = new Database(':memory:');
  try {
    db.exec(`CREATE VIRTUAL TABLE t USING fts5(x, tokenize = 'porter unicode61 remove_diacritics 2');
      CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance');`);
    const insert = db.prepare('INSERT INTO t(rowid, x) VALUES (?, ?)');
    db.transaction(() => texts.forEach((x, i) => insert.run(i + 1, x)))();
    const out = texts.map((): string[] => []);
    const rows = db.prepare('SELECT term, doc FROM v ORDER BY doc, offset').raw().iterate() as IterableIterator<[string, number]>;
    for (const [term, doc] of rows) out[doc - 1].push(term);
    return out;
  } finally {
    db.close();
  }
}

/** The texts tokens() splits differently from FTS5, at most 20 of them. */
function disagreements(texts: readonly string[]) {
  const want = fts5Tokens(texts);
  const diff = [];
  for (let i = 0; i < texts.length && diff.length < 20; i++) {
    const js = tokens(texts[i]);
    if (js.length !== want[i].length || js.some((t, k) => t !== want[i][k])) diff.push({ text: texts[i], fts5: want[i], js });
  }
  return diff;
}

// M. F. Porter (1980), the examples of each step, and common words of scientific abstracts.
const CLASSIC = `caresses ponies ties caress cats feed agreed plastered bled motoring sing conflated troubled sized
  hopping tanned falling hissing fizzed failing filing happy sky relational conditional rational valenci hesitanci
  digitizer conformabli radicalli differentli vileli analogousli vietnamization predication operator feudalism
  decisiveness hopefulness callousness formaliti sensitiviti sensibiliti triplicate formative formalize electriciti
  electrical hopeful goodness revival allowance inference airliner gyroscopic adjustable defensible irritant
  replacement adjustment dependent adoption homologou communism activate angulariti homologous effective bowdlerize
  probate rate cease controll roll generalizations oscillators tr ee tree by trouble oats trees ivy troubles private
  oaten orrery connect connected connecting connection connections relate related relativity agreement archprelate
  knack knightly meetings sportingly national nationalism happiness university universe analysis analyses
  probability possibly biology biologist biological sciences scientific proteins protein cells cellular expressed
  expression expressing patients treatment treated clinical clinically mice mouse studies studying studied results
  resulted significantly significant increased increases increasing decreased associated association risk factors
  cancer tumour tumors therapy therapies receptor receptors signaling signalling pathway pathways mutations mutated
  genes genetic genomic sequencing regulation regulatory regulates inhibition inhibitors inhibited activation
  activity activities infection infected infections vaccine vaccination vaccinated immune immunity antibodies
  antibody dose doses dosing randomized randomised controlled trials trial mortality morbidity incidence prevalence
  population populations women children adults elderly hospital hospitalization outcomes outcome measured measures
  measurement evidence effects effective effectiveness efficacy safety adverse events conclusions conclusion
  suggests suggested suggesting demonstrate demonstrated demonstrates observed observation observations analyzed
  analysed analyzing compared comparison comparable differences different difference independently independent
  sensitivity specificity diagnostic diagnosis diagnosed chronic acute disease diseases disorders disorder
  inflammation inflammatory metabolic metabolism obesity diabetes insulin glucose cardiovascular hypertension
  stroke neurons neuronal neural brain cognitive memory behavioral behaviour stem differentiation proliferation
  apoptosis transcription transcriptional phosphorylation ubiquitination methylation acetylation binding bound
  complexes complex structural structure structures functional function functions functioning characterized
  characterization identification identified identifying novel mechanisms mechanism mechanistic possibility
  possibilities generally general generalize generous ability abilities able ably feasibility feasible visible
  agreeable disagreeing seeing flying dying lying tying eying saying playing employed enjoyable falsely hopelessly
  skies spies flies`.split(/\s+/);

// Where FTS5's porter departs from the paper, and the limits of its byte-oriented stemmer.
const EDGES = [
  'eed',
  'eeds',
  'sses',
  'ies',
  'yyed',
  'ayying',
  'byyyed',
  'bitement',
  'analogi',
  'archaeologi',
  'nobli',
  'fabli',
  'αs',
  'ωing',
  'naïveté',
  'épées',
  'μmoles',
  '1960s',
  'covid19ing',
  '3ies',
  'ba၁ed',
  'a𐐨ies',
  ...[60, 61, 62, 63, 64, 65, 66].flatMap((n) => [`${'ba'.repeat(n)}ations`.slice(-n), `${'жa'.repeat(n)}ing`.slice(-n)]),
];

describe('porterStem and tokens agree with FTS5 porter unicode61 remove_diacritics 2', () => {
  it("stems the paper's examples as the paper does", () => {
    const stems = [
      'caresses',
      'ponies',
      'ties',
      'agreed',
      'hopping',
      'filing',
      'happy',
      'relational',
      'triplicate',
      'adjustment',
      'controll',
      'roll',
      'generalizations',
      'oscillators',
    ].map(porterStem);
    expect(stems).toEqual([
      'caress',
      'poni',
      'ti',
      'agre',
      'hop',
      'file',
      'happi',
      'relat',
      'triplic',
      'adjust',
      'control',
      'roll',
      'gener',
      'oscil',
    ]);
  });

  it('stems the classic Porter vocabulary as FTS5 does', () => {
    expect(disagreements(CLASSIC)).toEqual([]);
  });

  it('follows FTS5 where it departs from the paper: short words, y, bytes, the 64-byte limit', () => {
    expect(tokens('eed sses ies yyed ayying αs')).toEqual(['e', 'sse', 'ie', 'y', 'ai', 'α']);
    expect(disagreements(EDGES)).toEqual([]);
    expect(disagreements([EDGES.join(' ')])).toEqual([]);
  });

  it('splits on all but letters, numbers and private use, and folds case and Latin diacritics only', () => {
    expect(tokens('Café-au-lait: NAÏVE résumés, Ångström α-Synuclein TNF-α 3.5mg/kg (p<0.05) 1960s')).toEqual([
      'cafe',
      'au',
      'lait',
      'naiv',
      'resum',
      'angstrom',
      'α',
      'synuclein',
      'tnf',
      'α',
      '3',
      '5mg',
      'kg',
      'p',
      '0',
      '05',
      '1960',
    ]);
    expect(tokens('Ǡdam ẛ İstanbul Straße ΆΈΉ µm e\u0301tude \u0301abc \ud800x')).toEqual([
      'ǡdam',
      's',
      'istanbul',
      'straß',
      'άέή',
      'μm',
      'etud',
      'abc',
      'x',
    ]);
  });

  it('tokenizes every code point of planes 0, 1 and 14, and a sample of the others, as FTS5 does', () => {
    const points: number[] = [];
    for (let c = 0; c <= 0x10ffff; c++) {
      const plane = c >> 16;
      if ((c < 0xd800 || c > 0xdfff) && (plane <= 1 || plane === 14 || c % 61 === 0)) points.push(c);
    }
    // Each code point alone and inside a word ending in b, which the stemmer leaves alone.
    const texts = [];
    for (let i = 0; i < points.length; i += 2000) {
      texts.push(
        points
          .slice(i, i + 2000)
          .map((c) => String.fromCodePoint(c))
          .map((ch) => `${ch} b${ch}b`)
          .join(' '),
      );
    }
    expect(disagreements(texts)).toEqual([]);
  });

  // The SciFact corpus, as bench/search/search.ts reads it (the repository's gzip copy, or SCIFACT_DIR).
  const passages = () =>
    readDatasetText(join(scifactDir(), 'corpus.jsonl'))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { title: string; text: string })
      .map((d) => `${d.title}\n${d.text}`);

  it('agrees on every distinct word and every passage of SciFact', () => {
    const texts = passages();
    const words = [...new Set(texts.flatMap((t) => t.split(/\s+/)))].filter(Boolean);
    expect(words.length).toBeGreaterThan(90_000);
    expect(disagreements(words)).toEqual([]);
    expect(disagreements(texts)).toEqual([]);
  });
});
