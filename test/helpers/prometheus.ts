// A strict reader of the Prometheus text exposition format (version 0.0.4), for the tests of the
// /metrics endpoints: every line must be a comment, a HELP or TYPE line, or a sample of a family
// whose TYPE came before it; label values must be quoted and escaped; a histogram's buckets must
// rise, end at +Inf and agree with its _count. Anything else throws, naming the line.

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  /** The series name as written (`x_bucket`, `x_count`, …). */
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: MetricType;
  help?: string;
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set<MetricType>(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
const SUFFIXES: Record<MetricType, string[]> = {
  counter: ['', '_total', '_created'],
  gauge: [''],
  histogram: ['_bucket', '_sum', '_count', '_created'],
  summary: ['', '_sum', '_count', '_created'],
  untyped: [''],
};

function parseValue(text: string, where: string): number {
  if (text === '+Inf' || text === 'Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text === 'NaN') return NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`${where}: "${text}" is not a sample value`);
  return Number(text);
}

/** `{a="x",b="y\"z"}` from position `start` (at the `{`); returns the labels and the position after `}`. */
function parseLabels(line: string, start: number, where: string): { labels: Record<string, string>; end: number } {
  const labels: Record<string, string> = {};
  let i = start + 1;
  for (;;) {
    if (line[i] === '}') return { labels, end: i + 1 };
    const eq = line.indexOf('=', i);
    if (eq < 0) throw new Error(`${where}: label without "="`);
    const name = line.slice(i, eq).trim();
    if (!LABEL_NAME.test(name)) throw new Error(`${where}: bad label name "${name}"`);
    if (name in labels) throw new Error(`${where}: label "${name}" repeated`);
    if (line[eq + 1] !== '"') throw new Error(`${where}: label value of "${name}" not quoted`);
    let value = '';
    let j = eq + 2;
    for (; j < line.length && line[j] !== '"'; j++) {
      if (line[j] === '\\') {
        const next = line[++j];
        if (next === 'n') value += '\n';
        else if (next === '\\' || next === '"') value += next;
        else throw new Error(`${where}: bad escape "\\${next}" in label "${name}"`);
      } else value += line[j];
    }
    if (j >= line.length) throw new Error(`${where}: unterminated value of label "${name}"`);
    labels[name] = value;
    i = j + 1;
    if (line[i] === ',') i++;
    else if (line[i] !== '}') throw new Error(`${where}: expected "," or "}" after label "${name}"`);
  }
}

/** Parses a whole exposition; throws on the first line that breaks the format. */
export function parsePrometheusText(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const familyOfSeries = (series: string): Family | undefined => {
    for (const family of families.values()) {
      if (SUFFIXES[family.type].some((suffix) => family.name + suffix === series)) return family;
    }
    return undefined;
  };
  text.split('\n').forEach((raw, index) => {
    const line = raw.trimEnd();
    const where = `line ${index + 1} ("${line.slice(0, 80)}")`;
    if (line === '') return;
    if (line.startsWith('#')) {
      const match = /^#\s+(HELP|TYPE)\s+(\S+)(?:\s+(.*))?$/.exec(line);
      if (!match) return; // a plain comment
      const [, keyword, name, rest = ''] = match;
      if (!NAME.test(name)) throw new Error(`${where}: bad metric name`);
      const family = families.get(name) ?? { name, type: 'untyped' as MetricType, samples: [] };
      if (keyword === 'TYPE') {
        if (!TYPES.has(rest as MetricType)) throw new Error(`${where}: unknown type "${rest}"`);
        if (family.samples.length > 0) throw new Error(`${where}: TYPE after the family's samples`);
        family.type = rest as MetricType;
      } else family.help = rest;
      families.set(name, family);
      return;
    }
    const nameEnd = line.search(/[{\s]/);
    const series = nameEnd < 0 ? line : line.slice(0, nameEnd);
    if (!NAME.test(series)) throw new Error(`${where}: bad series name`);
    let labels: Record<string, string> = {};
    let rest = nameEnd < 0 ? '' : line.slice(nameEnd);
    if (rest.startsWith('{')) {
      const parsed = parseLabels(line, nameEnd, where);
      labels = parsed.labels;
      rest = line.slice(parsed.end);
    }
    const parts = rest.trim().split(/\s+/);
    if (parts.length < 1 || parts.length > 2 || parts[0] === '') throw new Error(`${where}: expected a value and an optional timestamp`);
    const value = parseValue(parts[0], where);
    if (parts[1] !== undefined && !/^-?\d+$/.test(parts[1])) throw new Error(`${where}: bad timestamp`);
    const family = familyOfSeries(series);
    if (!family) throw new Error(`${where}: sample of a family with no TYPE line before it`);
    family.samples.push({ name: series, labels, value });
  });
  for (const family of families.values()) if (family.type === 'histogram') checkHistogram(family);
  return families;
}

/** Per label set: buckets rise with `le`, the last is +Inf, and it equals _count. */
function checkHistogram(family: Family): void {
  const key = (labels: Record<string, string>) =>
    JSON.stringify(
      Object.entries(labels)
        .filter(([k]) => k !== 'le')
        .sort(),
    );
  const groups = new Map<string, { buckets: Array<[number, number]>; count?: number }>();
  for (const s of family.samples) {
    const group = groups.get(key(s.labels)) ?? { buckets: [] };
    groups.set(key(s.labels), group);
    if (s.name === `${family.name}_bucket`) {
      if (s.labels.le === undefined) throw new Error(`${family.name}: a bucket without "le"`);
      group.buckets.push([parseValue(s.labels.le, family.name), s.value]);
    } else if (s.name === `${family.name}_count`) group.count = s.value;
  }
  for (const [labels, { buckets, count }] of groups) {
    const last = buckets[buckets.length - 1];
    if (!last || last[0] !== Infinity) throw new Error(`${family.name} ${labels}: the last bucket is not +Inf`);
    if (last[1] !== count) throw new Error(`${family.name} ${labels}: the +Inf bucket (${last[1]}) is not _count (${count})`);
    for (let i = 1; i < buckets.length; i++) {
      if (buckets[i][0] <= buckets[i - 1][0] || buckets[i][1] < buckets[i - 1][1]) {
        throw new Error(`${family.name} ${labels}: buckets do not rise`);
      }
    }
  }
}

/** The samples of `series` whose labels include `labels`. */
export function samplesOf(families: Map<string, Family>, series: string, labels: Record<string, string> = {}): Sample[] {
  return [...families.values()]
    .flatMap((f) => f.samples)
    .filter((s) => s.name === series && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}
