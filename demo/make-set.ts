// Writes the demo's recorded set (demo/recorded/replay.jsonl + models.json): four steps of a
// support-desk workflow, each prompt with the answer of three models, the answer's 0/1 score
// and its token usage. The prompts come from templates below and the answers from each
// task's own rule, with each model wrong on a share of prompts that this file states, so
// the set is the project's own and may ship. Deterministic: the same file every run.
//
//   node demo/make-set.ts
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hash32, mulberry32 } from '../bench/routing/prng.ts';
import type { Answer, Models, Row } from '../bench/routing/data.ts';

const out = join(dirname(fileURLToPath(import.meta.url)), 'recorded');

/** Prices per million tokens, as the vendors list them. */
export const MODELS: Models = {
  baseline: 'gpt-4o',
  models: {
    'gpt-4o': { input_per_mtok: 2.5, output_per_mtok: 10 },
    'claude-3-haiku': { input_per_mtok: 0.25, output_per_mtok: 1.25 },
    'gpt-4o-mini': { input_per_mtok: 0.15, output_per_mtok: 0.6 },
  },
};

interface Task {
  step: string;
  rows: number;
  system: string;
  labels: string[];
  /** The prompt's text and its right answer, for the i-th row. */
  make: (rand: () => number) => { text: string; answer: string };
  /** Each model's chance of answering right on this step. */
  accuracy: Record<string, number>;
}

const pick = <T>(rand: () => number, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
const OPENERS = ['', 'Hi, ', 'Hello team, ', 'Quick one: ', 'Update: ', 'Honestly, '];
/** A sentence with a random opener, capitalized. */
const said = (rand: () => number, s: string) => {
  const t = pick(rand, OPENERS) + s;
  return t[0]!.toUpperCase() + t.slice(1);
};

const PRODUCTS = ['the invoice page', 'the mobile app', 'the export to CSV', 'two-factor login', 'the billing portal', 'the team settings', 'the API dashboard', 'the search bar'];
const TICKETS: Record<string, string[]> = {
  billing: ['I was charged twice this month for {p}.', 'Why did my card get billed before the trial of {p} ended?', 'Please send a refund, {p} billed the wrong plan.', 'The amount on my invoice does not match {p}.'],
  bug: ['{p} crashes every time I open it.', 'Since yesterday {p} shows a blank screen.', 'Clicking save in {p} does nothing.', '{p} throws an error 500 after the update.'],
  account: ['I cannot reset my password for {p}.', 'How do I add a colleague to {p}?', 'Please delete my account and the data in {p}.', 'My email changed, how do I update it for {p}?'],
  feature: ['Could {p} support dark mode?', 'It would be great if {p} had keyboard shortcuts.', 'Please add a bulk edit option to {p}.', 'Any plans to let {p} export to PDF?'],
};
const REVIEWS: Record<string, string[]> = {
  positive: ['Setup took five minutes and {p} just works.', 'Support answered in an hour and fixed {p} for us.', 'We love how fast {p} is now.', '{p} saved our team hours every week.'],
  negative: ['{p} has been down three times this week.', 'Support never replied about {p}.', '{p} is slower after every release.', 'We are moving away because {p} keeps failing.'],
};
const CITIES = ['Lisbon', 'Osaka', 'Denver', 'Nairobi', 'Montreal', 'Krakow', 'Lima', 'Auckland', 'Seville', 'Hanoi', 'Tallinn', 'Porto'];
const CITY_LINES = ['Ship the replacement to our office in {c}, please.', 'Our {c} team reports that {p} is slow.', 'The invoice should carry our {c} address.', 'Can someone from the {c} branch call me back about {p}?'];
const CLAUSES: Record<string, string[]> = {
  low: ['Either party may end this agreement with thirty days written notice.', 'Invoices are payable within thirty days of receipt.', 'Each party keeps the rights to its own prior work.'],
  medium: ['Fees may be revised once a year with sixty days notice.', 'The supplier may use subcontractors with the customer informed in advance.', 'Support hours are limited to business days in the supplier time zone.'],
  high: ['The customer waives every claim for damages, including gross negligence.', 'The supplier may change these terms at any time without notice.', 'Liability of the supplier is unlimited for the customer and capped at one dollar for the supplier.'],
};

const TASKS: Task[] = [
  {
    step: 'ticket-triage',
    rows: 600,
    system: 'Classify the support ticket. Answer with one word: billing, bug, account or feature.',
    labels: Object.keys(TICKETS),
    make: (rand) => {
      const label = pick(rand, Object.keys(TICKETS));
      return { text: said(rand, pick(rand, TICKETS[label]!).replace('{p}', pick(rand, PRODUCTS))), answer: label };
    },
    accuracy: { 'gpt-4o': 0.99, 'claude-3-haiku': 0.98, 'gpt-4o-mini': 0.98 },
  },
  {
    step: 'review-sentiment',
    rows: 360,
    system: 'Is this customer review positive or negative? Answer with one word.',
    labels: Object.keys(REVIEWS),
    make: (rand) => {
      const label = pick(rand, Object.keys(REVIEWS));
      return { text: said(rand, pick(rand, REVIEWS[label]!).replace('{p}', pick(rand, PRODUCTS))), answer: label };
    },
    accuracy: { 'gpt-4o': 0.99, 'claude-3-haiku': 0.99, 'gpt-4o-mini': 0.98 },
  },
  {
    step: 'city-extract',
    rows: 500,
    system: 'Which city does the message name? Answer with the city only.',
    labels: CITIES,
    make: (rand) => {
      const city = pick(rand, CITIES);
      return { text: said(rand, pick(rand, CITY_LINES).replace('{c}', city).replace('{p}', pick(rand, PRODUCTS))), answer: city };
    },
    accuracy: { 'gpt-4o': 0.99, 'claude-3-haiku': 0.98, 'gpt-4o-mini': 0.97 },
  },
  {
    step: 'contract-risk',
    rows: 300,
    system: 'Rate the legal risk of this contract clause for our company. Answer with one word: low, medium or high.',
    labels: Object.keys(CLAUSES),
    make: (rand) => {
      const label = pick(rand, Object.keys(CLAUSES));
      return { text: `${pick(rand, CLAUSES[label]!)} (clause ${Math.floor(rand() * 900) + 100})`, answer: label };
    },
    // the cheap models miss nuance here: this step should stay on the baseline
    accuracy: { 'gpt-4o': 0.97, 'claude-3-haiku': 0.78, 'gpt-4o-mini': 0.6 },
  },
];

const tokens = (s: string) => Math.max(1, Math.ceil(s.length / 4));

export function makeSet(): Row[] {
  const rows: Row[] = [];
  for (const task of TASKS) {
    const rand = mulberry32(hash32(`demo|${task.step}`));
    const seen = new Set<string>();
    for (let i = 0; rows.filter((r) => r.step === task.step).length < task.rows && i < task.rows * 50; i++) {
      const { text, answer } = task.make(rand);
      if (seen.has(text)) continue; // each prompt once: the vendor finds a row by its prompt
      seen.add(text);
      const messages = [
        { role: 'system', content: task.system },
        { role: 'user', content: text },
      ];
      const promptTokens = tokens(task.system) + tokens(text) + 8;
      const answers: Record<string, Answer> = {};
      for (const model of Object.keys(MODELS.models)) {
        const right = rand() < task.accuracy[model]!;
        const wrong = task.labels.filter((l) => l !== answer);
        const text_ = right ? answer : pick(rand, wrong);
        answers[model] = { text: text_, score: right ? 1 : 0, usage: { prompt_tokens: promptTokens, completion_tokens: tokens(text_) + 1 } };
      }
      const n = rows.filter((r) => r.step === task.step).length;
      rows.push({ id: `${task.step}/${n}`, step: task.step, split: n % 3 === 2 ? 'test' : 'train', messages, answers });
    }
  }
  return rows;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  mkdirSync(out, { recursive: true });
  const rows = makeSet();
  writeFileSync(join(out, 'replay.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  writeFileSync(join(out, 'models.json'), JSON.stringify(MODELS, null, 2) + '\n');
  console.log(`${rows.length} rows in ${out}`);
}
